package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"svcctl/internal/fsutil"
)

// Removed is what `svc-ctl reload --keep-removed` leaves behind for a
// service the new config no longer has while its instance runs on: the pid
// file stays where it was, and this record says the service is gone from the
// config and how long its processes are given to stop (its stop_timeout),
// so that `svc-ctl stop NAME` can still stop the instance, identity-checked,
// until it is gone, across an agent restart. A reload that adds the service
// back, or the stop that ends the instance, removes it.
type Removed struct {
	At          time.Time `json:"at"`
	By          string    `json:"by,omitempty"`
	Config      string    `json:"config"`
	PID         int32     `json:"pid"`
	StopTimeout string    `json:"stop_timeout"`
}

// StopWait is the record's stop_timeout (10s if it cannot be read).
func (r Removed) StopWait() time.Duration {
	d, err := time.ParseDuration(r.StopTimeout)
	if err != nil || d <= 0 {
		return 10 * time.Second
	}
	return d
}

// WriteRemoved writes the record.
func WriteRemoved(p Paths, name string, r Removed) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(p.Removed(name), append(b, '\n'), fsutil.FilePerm)
}

// ReadRemoved reads the record; nil with no error when there is none.
func ReadRemoved(p Paths, name string) (*Removed, error) {
	b, err := fsutil.ReadFile(p.Removed(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Removed
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is damaged: %w", p.Removed(name), err)
	}
	return &r, nil
}

// ForgetRemoved removes the record (none is fine).
func ForgetRemoved(p Paths, name string) error {
	if err := os.Remove(p.Removed(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// RemovedServices lists the services with a record, by name.
func RemovedServices(p Paths) []string {
	entries, err := os.ReadDir(p.ServiceDir(""))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Lstat(p.Removed(e.Name())); err == nil && e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}
