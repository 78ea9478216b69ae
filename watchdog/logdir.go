package watchdog

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/internal/runas"
	"svcctl/snapshot"
)

// A service's log is acted on only through its pinned directory
// (fsutil.Dir): the log's directory is checked and opened once, following
// no link, and every later operation — the child's log, the cap, the copy,
// the truncation, the rotation, the tail read for a snapshot — names a file
// in that handle, never a path. The config resolved the path at load
// (fsutil.Canonical: only administrators' links). At each spawn the path
// is opened again and compared with the pin: another directory there is
// refused and recorded, never followed, unless only administrators could
// have put it there (every directory on the path the agent's and writable
// by no one else: the state dir, /var/log/...), in which case it is
// checked and pinned in the old one's place. A reload pins every log again.

// logPin is one service's pinned log directory.
type logPin struct {
	path string // the log's path when pinned (svc.Log)
	log  snapshot.Log
}

// logPins is the pins of every service, by name; SetConfig starts a new
// set (a reload checks and pins again). A dropped pin's directory is closed
// when nothing uses it any more (its file's finalizer): a cycle in
// progress keeps the one it began with.
type logPins struct {
	mu sync.Mutex
	m  map[string]*logPin
}

func (p *logPins) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m = nil
}

// serviceLog is the service's log in its pinned directory, pinned (after
// the checks) at its first use. id is the service's user, resolved by the
// caller (nil: the agent's).
func (s *Supervisor) serviceLog(svc *config.Service, id *runas.Identity) (snapshot.Log, error) {
	s.pins.mu.Lock()
	defer s.pins.mu.Unlock()
	if p := s.pins.m[svc.Name]; p != nil && p.path == svc.Log {
		return p.log, nil
	}
	l, err := pinLog(svc.Log, id)
	if err != nil {
		return snapshot.Log{}, err
	}
	if s.pins.m == nil {
		s.pins.m = map[string]*logPin{}
	}
	s.pins.m[svc.Name] = &logPin{path: svc.Log, log: l}
	return l, nil
}

// pinnedLog is serviceLog for a use that has no identity at hand (the cap
// loop, the evidence step): the service's user is resolved at the first
// use only; after that the pin keeps what it was pinned with.
func (s *Supervisor) pinnedLog(svc *config.Service) (snapshot.Log, error) {
	s.pins.mu.Lock()
	p := s.pins.m[svc.Name]
	s.pins.mu.Unlock()
	if p != nil && p.path == svc.Log {
		return p.log, nil
	}
	id, err := svc.RunAs.Identity()
	if err != nil {
		return snapshot.Log{}, fmt.Errorf("run as %s: %w", svc.RunAs.User+":"+svc.RunAs.Group, err)
	}
	return s.serviceLog(svc, id)
}

// logForSpawn is the service's log for a new instance: the pin (taken now
// if there is none), after the path was opened again and found to lead to
// the pinned directory still.
func (s *Supervisor) logForSpawn(svc *config.Service, id *runas.Identity) (snapshot.Log, error) {
	l, err := s.serviceLog(svc, id)
	if err != nil {
		return snapshot.Log{}, err
	}
	dir := filepath.Dir(svc.Log)
	again, err := fsutil.OpenDir(dir)
	if err != nil {
		return snapshot.Log{}, fmt.Errorf("refusing log %s: %w", svc.Log, err)
	}
	if l.Dir.Same(again) {
		again.Close()
		return l, checkLogDir(svc.Log, id)
	}
	if err := adminOnly(dir); err != nil {
		again.Close()
		s.Log.Warn("service.log_dir_replaced", "service", svc.Name, "dir", dir)
		return snapshot.Log{}, fmt.Errorf("refusing log %s: %w", svc.Log, replaced(dir, err))
	}
	// Only an administrator could have replaced it: check and pin the new
	// one in the old one's place.
	if err := checkPinned(again, svc.Log, id); err != nil {
		again.Close()
		return snapshot.Log{}, err
	}
	l = snapshot.Log{Dir: again, Name: l.Name, Owners: l.Owners}
	s.pins.mu.Lock()
	if s.pins.m == nil {
		s.pins.m = map[string]*logPin{}
	}
	s.pins.m[svc.Name] = &logPin{path: svc.Log, log: l}
	s.pins.mu.Unlock()
	return l, nil
}

// replaced is the refusal of a log directory found replaced, with why a
// non-administrator could have done it.
func replaced(dir string, why error) error {
	return fmt.Errorf("directory %s %w (another directory is there now), and not only an administrator could have done it (%v): not followed; "+
		"if an administrator moved it on purpose, `svc-ctl reload` checks and pins it again", dir, fsutil.ErrReplaced, why)
}

// pinLog pins the directory of the log at path, creating it (0700, the
// agent's) when missing, and checks it.
func pinLog(path string, id *runas.Identity) (snapshot.Log, error) {
	if path == "" {
		return snapshot.Log{}, errors.New("the service has no log path")
	}
	d, err := fsutil.EnsurePinnedDir(filepath.Dir(path))
	if err != nil {
		return snapshot.Log{}, fmt.Errorf("refusing log %s: %w", path, err)
	}
	if err := checkPinned(d, path, id); err != nil {
		d.Close()
		return snapshot.Log{}, err
	}
	return snapshot.Log{Dir: d, Name: filepath.Base(path), Owners: fsutil.TrustedOwners(serviceUIDs(id)...)}, nil
}

// checkPinned is checkLogDir for a directory just pinned: the handle's own
// owner and mode, then its path's.
func checkPinned(d *fsutil.Dir, logPath string, id *runas.Identity) error {
	if !privileged() {
		return nil
	}
	fi, err := d.Stat()
	if err != nil {
		return fmt.Errorf("refusing log %s: %w", logPath, err)
	}
	if err := fsutil.CheckDirInfo(d.Path(), fi, serviceUIDs(id)...); err != nil {
		return fmt.Errorf("refusing log %s: %w", logPath, err)
	}
	return checkLogDir(logPath, id)
}

func serviceUIDs(id *runas.Identity) []int {
	if id == nil {
		return nil
	}
	return []int{int(id.UID)}
}

// adminOnly reports (nil) whether no one but the agent's user (or root)
// could have changed what dir names: every directory from it to / theirs
// and writable by no one else.
func adminOnly(dir string) error {
	return fsutil.CheckDirChain(dir)
}
