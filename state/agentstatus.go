package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/runtrace"
)

// AgentReport is what a running agent says about itself in agent.status,
// for the command line to read when the ledger cannot tell: above all when
// the disk is full, the heartbeat row cannot be renewed and `status` would
// otherwise call a working agent "stale". UpdatedAt is renewed every
// heartbeat period whatever the ledger does, so together with the agent lock
// it proves the agent alive.
type AgentReport struct {
	Instance  string          `json:"instance"`
	PID       int             `json:"pid"`
	StartedAt time.Time       `json:"started_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Ledger    runtrace.Health `json:"ledger"`
	// Set by a stop: when, where the rows still waiting went (a spill
	// file), and how many rows no ledger or spill file holds. The next agent
	// records Lost as an agent row.
	StoppedAt time.Time `json:"stopped_at,omitzero"`
	Spill     string    `json:"spill,omitempty"`
	Lost      int       `json:"lost,omitempty"`
	// Config is the config file the agent runs, as it was when it was
	// loaded (at start or by the last reload that took it): `status` and
	// `verify` compare it with the file on disk now.
	Config *LoadedConfig `json:"config,omitempty"`
	// Serves lists the kinds of request (package control) this agent
	// answers: the command line hands over only what the running agent
	// says it takes, so an agent older than the command is never sent a
	// wake it does not know.
	Serves []string `json:"serves,omitempty"`
	// Draining: the agent received its stop and is draining (no new
	// cycles; in-flight runs finish up to drain_timeout).
	Draining bool `json:"draining,omitempty"`
	// Boot is the boot the agent runs in (proc.BootID; "" where the OS
	// names none): the next agent tells a crash from a host that went
	// down by it.
	Boot string `json:"boot_id,omitempty"`
	// Checked is, per service, when the agent last looked at its health,
	// where that is newer than its state.json says: a healthy service's
	// cycles that change nothing keep state.json as it was (watchdog,
	// written.go) and readers take "last checked" from here. Renewed at
	// each heartbeat; left out when it would not fit in the file.
	Checked map[string]time.Time `json:"checked,omitempty"`
}

// LoadedConfig is the config file an agent loaded.
type LoadedConfig struct {
	Path     string    `json:"path"`
	Digest   string    `json:"sha256"`
	ModTime  time.Time `json:"mtime,omitzero"`
	LoadedAt time.Time `json:"loaded_at"`
	// NeedsRestart lists what the last reload read but could not apply
	// while the agent runs ("agent.heartbeat", "[[notify]]"): the agent
	// goes on with the values it started with until it is restarted.
	NeedsRestart []string `json:"needs_restart,omitempty"`
}

// statusSize is agent.status's fixed size. The file is allocated once, at
// start, and from then on rewritten in place within it: an in-place
// overwrite needs no new blocks, so it works on a full disk (on file systems
// that overwrite in place: ext4, xfs, tmpfs, APFS, NTFS; a copy-on-write
// one such as btrfs or ZFS may still refuse it).
const statusSize = 4096

// StatusFile is agent.status, open for the agent to rewrite, and the place
// elsewhere it writes to while agent.status cannot be rewritten.
type StatusFile struct {
	mu        sync.Mutex
	f         *os.File
	elsewhere string
	away      bool // the last report went elsewhere
}

// OpenStatusFile opens (creating) agent.status and makes sure its blocks are
// allocated.
func OpenStatusFile(p Paths) (*StatusFile, error) {
	path := p.AgentStatus()
	f, err := fsutil.OpenFile(path, os.O_RDWR|os.O_CREATE, fsutil.FilePerm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() != statusSize {
		if err = f.Truncate(0); err == nil {
			_, err = f.WriteAt(bytes.Repeat([]byte(" "), statusSize), 0)
		}
		if err == nil {
			err = f.Sync()
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("allocate %s: %w", path, err)
	}
	return &StatusFile{f: f, elsewhere: p.AgentStatusElsewhere()}, nil
}

// Write rewrites the report in place.
func (s *StatusFile) Write(r AgentReport) error {
	b, err := json.Marshal(r)
	if err == nil && len(b) >= statusSize {
		r.Checked = nil // readers fall back on state.json's older times
		b, err = json.Marshal(r)
	}
	if err == nil && len(b) >= statusSize {
		r.Ledger.Error = "" // the one field of unbounded length
		b, err = json.Marshal(r)
	}
	if err != nil {
		return err
	}
	if len(b) >= statusSize {
		return fmt.Errorf("agent report of %d bytes does not fit in %d", len(b), statusSize)
	}
	buf := bytes.Repeat([]byte(" "), statusSize)
	copy(buf, b)
	buf[statusSize-1] = '\n'
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("agent.status is closed")
	}
	_, err = s.f.WriteAt(buf, 0)
	if err == nil {
		if s.away {
			s.away = false
			os.Remove(s.elsewhere)
		}
		return nil
	}
	// A read-only or unwritable state dir: the report goes elsewhere (a
	// private directory outside it), where readers look too.
	if eerr := writeElsewhere(s.elsewhere, b); eerr != nil {
		return errors.Join(err, eerr)
	}
	s.away = true
	return nil
}

func writeElsewhere(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return err
	}
	if err := fsutil.CheckPrivate(dir, os.Getuid()); err != nil {
		return err
	}
	return fsutil.ReplaceFile(path, append(b, '\n'), fsutil.FilePerm)
}

// Close closes the file (it stays on disk, allocated for the next agent).
func (s *StatusFile) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// ReadAgentReport reads the agent's report: agent.status, or the newer
// report the agent put elsewhere while agent.status could not be rewritten.
// A read that races a rewrite can see a mix of two reports; it is read
// again.
func ReadAgentReport(p Paths) (*AgentReport, error) {
	r, err := readReport(p.AgentStatus())
	if other, oerr := readElsewhere(p.AgentStatusElsewhere()); oerr == nil && (err != nil || other.UpdatedAt.After(r.UpdatedAt)) {
		return other, nil
	}
	return r, err
}

// readElsewhere reads the report outside the state dir only if this user
// owns it and nobody else can write it (a planted report must not make a
// dead agent look alive).
func readElsewhere(path string) (*AgentReport, error) {
	if err := fsutil.CheckPrivate(filepath.Dir(path), os.Getuid()); err != nil {
		return nil, err
	}
	if err := fsutil.CheckPrivate(path, os.Getuid()); err != nil {
		return nil, err
	}
	return readReport(path)
}

func readReport(path string) (*AgentReport, error) {
	var lastErr error
	for range 3 {
		b, err := readStatus(path)
		if err != nil {
			return nil, err
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			return nil, fmt.Errorf("%s is empty: %w", path, os.ErrNotExist)
		}
		var r AgentReport
		if lastErr = json.Unmarshal(b, &r); lastErr == nil {
			return &r, nil
		}
	}
	return nil, fmt.Errorf("%s is damaged: %w", path, lastErr)
}

func readStatus(path string) ([]byte, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, statusSize))
}
