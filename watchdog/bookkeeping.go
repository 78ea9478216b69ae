package watchdog

import (
	"os"
	"sync"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/proc"
	"svcctl/state"
)

// bookkeeping is what a cycle writes besides its run row: state.json (the
// failure counter, backoff, given-up) and watchdog.last.json. When the disk
// refuses a write (full, read-only, ...) the newest version stays in memory:
// the next cycle decides from it, not from the stale file, so a full disk
// never changes a supervision decision, and it is written by the first cycle
// that can. One line is logged when writes start failing and one when they
// all work again, not one per write.
type bookkeeping struct {
	mu     sync.Mutex
	states map[string]keptState         // service -> state not yet written
	last   map[string]*state.LastResult // service -> watchdog.last.json entry not yet written
	pids   map[string]proc.Instance     // service -> the instance spawned, its pid file not yet written
	// read is, per service, the instance record last read and its file.
	read map[string]readRecord
	// pending is, per service, what a look saw while another cycle held
	// the service's lock (Track): merged into the record by the next look.
	pending map[string]proc.Instance
	since   time.Time // when writes started failing; zero while they work
	failed  int       // writes refused since then
}

// keptState is a state the disk refused, and when.
type keptState struct {
	st state.Service
	at time.Time
}

// loadState returns the service's state: the one kept in memory when its
// file could not be written (it is newer than the file), else the file's. A
// file written after that (by `svc-ctl resume`, once the disk took writes
// again) is newer still, and wins.
func (s *Supervisor) loadState(name string) (state.Service, error) {
	path := s.Paths.StateFile(name)
	s.book.mu.Lock()
	k, ok := s.book.states[name]
	s.book.mu.Unlock()
	if ok {
		if fi, err := os.Stat(path); err != nil || !fi.ModTime().After(k.at) {
			return k.st, nil
		}
	}
	return state.LoadService(path)
}

// saveState writes the service's state, or keeps it in memory. A state that
// waited in memory is written durably (it carries a change).
func (s *Supervisor) saveState(name string, st state.Service, durable bool) {
	s.book.mu.Lock()
	_, waited := s.book.states[name]
	s.book.mu.Unlock()
	err := state.SaveService(s.Paths.StateFile(name), st, durable || waited)
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	if err != nil {
		if s.book.states == nil {
			s.book.states = map[string]keptState{}
		}
		s.book.states[name] = keptState{st: st, at: time.Now()}
		s.writeFailedLocked(s.Paths.StateFile(name), err)
		return
	}
	delete(s.book.states, name)
	s.writeOKLocked()
}

// saveLast writes the service's watchdog.last.json entry together with any
// that are waiting, or keeps them all in memory.
func (s *Supervisor) saveLast(name string, r *state.LastResult, durable bool) {
	s.book.mu.Lock()
	if s.book.last == nil {
		s.book.last = map[string]*state.LastResult{}
	}
	waited := len(s.book.last) > 0
	s.book.last[name] = r
	all := make(map[string]*state.LastResult, len(s.book.last))
	for k, v := range s.book.last {
		all[k] = v
	}
	s.book.mu.Unlock()
	err := state.UpdateLastAll(s.Paths.WatchdogLast(), all, durable || waited)
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	if err != nil {
		s.writeFailedLocked(s.Paths.WatchdogLast(), err)
		return
	}
	for k, v := range all {
		if s.book.last[k] == v {
			delete(s.book.last, k)
		}
	}
	s.writeOKLocked()
}

func (s *Supervisor) writeFailedLocked(path string, err error) {
	s.book.failed++
	if !s.book.since.IsZero() {
		s.Log.Debug("state.write_failed", "file", path, "err", err)
		return
	}
	s.book.since = s.now()
	s.Log.Error("state.write_failing", "file", path, "problem", string(fsutil.ProblemOf(err)), "err", err,
		"hint", "supervision goes on: service state and results are kept in memory and written as soon as the disk takes them")
}

func (s *Supervisor) writeOKLocked() {
	if s.book.since.IsZero() || len(s.book.states) > 0 || len(s.book.last) > 0 || len(s.book.pids) > 0 {
		return
	}
	s.Log.Info("state.write_recovered", "since", s.book.since, "refused_writes", s.book.failed,
		"for_ms", s.now().Sub(s.book.since).Milliseconds())
	s.book.since, s.book.failed = time.Time{}, 0
}

// savePid records the instance just spawned in its pid file, or keeps it in
// memory: the next cycle must know which instance is ours (to stop it, to
// watch its exit) even when the file still names the one before.
func (s *Supervisor) savePid(name string, inst proc.Instance) {
	err := proc.WriteInstance(s.Paths.Pid(name), inst)
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	if err != nil {
		if s.book.pids == nil {
			s.book.pids = map[string]proc.Instance{}
		}
		s.book.pids[name] = inst
		s.writeFailedLocked(s.Paths.Pid(name), err)
		return
	}
	delete(s.book.pids, name)
	s.writeOKLocked()
}

// retryPid writes a pid file that waited in memory (the caller holds the
// service's lock).
func (s *Supervisor) retryPid(name string) {
	s.book.mu.Lock()
	id, ok := s.book.pids[name]
	s.book.mu.Unlock()
	if ok {
		s.savePid(name, id)
	}
}

// Instance is the service's current instance as this process knows it: the
// one it spawned when that pid file could not be written yet, else the pid
// file's.
//
// A record read before and not replaced since (the same file, size and
// modification time: every write is a rename) is not parsed again: a
// healthy cycle reads it every interval, and a record that remembers its
// members is a few KiB of JSON.
func (s *Supervisor) Instance(name string) (proc.Instance, error) {
	s.book.mu.Lock()
	inst, ok := s.book.pids[name]
	s.book.mu.Unlock()
	if ok {
		return inst, nil
	}
	path := s.Paths.Pid(name)
	fi, err := os.Lstat(path)
	if err == nil {
		s.book.mu.Lock()
		c, ok := s.book.read[name]
		s.book.mu.Unlock()
		if ok && os.SameFile(c.fi, fi) && c.fi.Size() == fi.Size() && c.fi.ModTime().Equal(fi.ModTime()) {
			return c.inst.Clone(), nil
		}
	}
	inst, err = proc.ReadInstance(path)
	if err == nil && fi != nil {
		s.book.mu.Lock()
		if s.book.read == nil {
			s.book.read = map[string]readRecord{}
		}
		s.book.read[name] = readRecord{fi: fi, inst: inst.Clone()}
		s.book.mu.Unlock()
	}
	return inst, err
}

// readRecord is an instance record as read, and the file it was read from.
type readRecord struct {
	fi   os.FileInfo
	inst proc.Instance
}

// WritesFailing reports since when state.json or watchdog.last.json writes
// have been refused (zero when they work).
func (s *Supervisor) WritesFailing() time.Time {
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	return s.book.since
}
