package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"time"

	"svcctl/internal/fsutil"
)

// Pause is the sentinel file that tells the watchdog to hold off. It records
// who paused, why and until when, so a forgotten pause can be found.
type Pause struct {
	At     time.Time  `json:"at"`
	Until  *time.Time `json:"until,omitempty"` // nil: until resumed
	Reason string     `json:"reason"`
	By     string     `json:"by"`
}

// StopReason is the reason of the pause `svc-ctl stop` writes.
const StopReason = "stopped"

// HeldState is the service state a pause in force puts it in: Stopped
// for a person's stop, Paused for any other pause.
func (p *Pause) HeldState() string {
	if p != nil && p.Reason == StopReason {
		return Stopped
	}
	return Paused
}

// Active reports whether the pause still holds at now.
func (p *Pause) Active(now time.Time) bool {
	return p != nil && (p.Until == nil || now.Before(*p.Until))
}

// ReadPause returns the sentinel at path, nil when there is none. A sentinel
// that cannot be parsed still pauses: someone meant it (reason says so).
func ReadPause(path string) (*Pause, error) {
	b, err := fsutil.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read pause sentinel: %w", err)
	}
	var p Pause
	if err := json.Unmarshal(b, &p); err != nil {
		st, _ := os.Lstat(path)
		p = Pause{Reason: "unreadable sentinel " + path}
		if st != nil {
			p.At = st.ModTime().UTC()
		}
	}
	return &p, nil
}

// WritePause writes the sentinel atomically.
func WritePause(path string, p Pause) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

// RemovePause deletes the sentinel; a missing one is fine.
func RemovePause(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove pause sentinel: %w", err)
	}
	return nil
}

// Who names the person or process behind a manual action, for the record.
func Who() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s (pid %d)", name, host, os.Getpid())
}
