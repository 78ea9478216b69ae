package watchdog

import (
	"slices"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/state"
)

// An instance's members are remembered in its record (the pid file) as they
// are seen: at its start, at each cycle (a Walk down from the members known),
// and at each exit event (a Scan of every process); see proc.Instance. So a
// member whose leader died, or that wrote its title over its environment,
// is still the instance's: stopped with it, counted for its limits, listed
// by status.

// members lists the service's recorded instance now (the caller holds the
// service's lock), adopting its pid_file's process as its main process when
// it may be, and writes the record when what it remembers changed. No record
// gives os.ErrNotExist.
func (c *cycle) members(d proc.Depth) (proc.Tree, proc.Instance, error) {
	inst, err := c.s.record(c.svc.Name)
	if err != nil {
		return proc.Tree{}, inst, err
	}
	return c.s.lookAt(c.svc, inst, d, true)
}

// lookAt is members for inst; save says whether the record may be written
// (the caller holds the service's lock).
func (s *Supervisor) lookAt(svc *config.Service, inst proc.Instance, d proc.Depth, save bool) (proc.Tree, proc.Instance, error) {
	adopted := s.adopt(svc, &inst)
	t, rec, err := proc.Look(inst, d)
	if err != nil {
		return t, inst, err
	}
	// An instance read from a pending record (its spawner died before the
	// pid file was written) gets its pid file now.
	changed := adopted || inst.Resolved || proc.Changed(inst, rec)
	if save && changed {
		s.savePid(svc.Name, rec)
	} else if !save && changed {
		s.keepPending(svc.Name, rec)
	}
	return t, rec, nil
}

// adopt makes the process the service's pid_file names the instance's main
// process when it may be (proc.AdoptPidFile) and the main process recorded
// is not alive; it reports whether inst changed.
func (s *Supervisor) adopt(svc *config.Service, inst *proc.Instance) bool {
	if svc.PidFile == "" {
		return false
	}
	if inst.Main != nil && inst.MainVia == mainPidFile {
		if ok, _ := proc.Match(*inst.Main); ok {
			return false
		}
	}
	id, err := proc.AdoptPidFile(svc.PidFile, *inst)
	if err != nil {
		return false
	}
	if inst.Main != nil && inst.Main.Same(id) {
		return false
	}
	inst.Main, inst.MainVia = &id, mainPidFile
	return true
}

// How a main process other than the leader was found (Instance.MainVia).
const (
	mainPidFile = "pid_file"
	mainPort    = "port"
)

// Track looks at the service's recorded instance (an exit event: a member
// ended) and remembers what it saw. It looks with every proof (a Scan),
// unless the last Scan of this service was less than trackScanEvery ago
// (a server that forks a child per request ends children all the time):
// then a Walk; full always scans (a leader's exit: what it orphaned is
// found then). It writes the record at most every trackWriteEvery, and only
// when it holds the service's lock; otherwise the members seen wait in
// memory and are merged into the record by the next look that holds it.
// No record gives os.ErrNotExist.
func (s *Supervisor) Track(name string, full bool) (proc.Tree, proc.Instance, error) {
	svc := s.Config().Service(name)
	if svc == nil {
		return proc.Tree{}, proc.Instance{}, UnknownService(s.Config(), name)
	}
	now := time.Now()
	t := s.tracked(name)
	d := proc.Scan
	if !full && now.Sub(t.scanned) < trackScanEvery {
		d = proc.Walk
	}
	save := now.Sub(t.written) >= trackWriteEvery
	var lock *state.ServiceLock
	if save {
		l, held, err := state.TryLock(s.Paths.Lock(name))
		save = held && err == nil
		lock = l
	}
	if save {
		defer lock.Unlock()
	}
	inst, err := s.record(name)
	if err != nil {
		return proc.Tree{}, inst, err
	}
	tree, rec, err := s.lookAt(svc, inst, d, save)
	s.trackMu.Lock()
	if d == proc.Scan {
		s.track[name].scanned = now
	}
	if save {
		s.track[name].written = now
	}
	s.trackMu.Unlock()
	if d == proc.Walk && err == nil && tree.Len() == 0 {
		// Nothing left by a Walk: the end of an instance is decided with
		// every proof.
		tree, rec, err = s.lookAt(svc, rec, proc.Scan, save)
	}
	return tree, rec, err
}

// Track's pace (see Track).
const (
	trackScanEvery  = 250 * time.Millisecond
	trackWriteEvery = time.Second
)

// trackState is when Track last scanned and wrote a service's record.
type trackState struct{ scanned, written time.Time }

func (s *Supervisor) tracked(name string) *trackState {
	s.trackMu.Lock()
	defer s.trackMu.Unlock()
	if s.track == nil {
		s.track = map[string]*trackState{}
	}
	t := s.track[name]
	if t == nil {
		t = &trackState{}
		s.track[name] = t
	}
	cp := *t
	return &cp
}

// record is the service's instance record as this process knows it (see
// Instance), with the members a look saw while the lock was busy merged in
// when they belong to this instance.
func (s *Supervisor) record(name string) (proc.Instance, error) {
	inst, err := s.Instance(name)
	if err != nil {
		return inst, err
	}
	s.book.mu.Lock()
	p, ok := s.book.pending[name]
	delete(s.book.pending, name)
	s.book.mu.Unlock()
	if ok && p.Identity.Same(inst.Identity) {
		for _, k := range p.Remembered {
			if !slices.ContainsFunc(inst.Remembered, func(o proc.Known) bool { return o.Same(k.Identity) }) {
				inst.Remembered = append(inst.Remembered, k)
			}
		}
		if inst.Main == nil && p.Main != nil {
			inst.Main, inst.MainVia = p.Main, p.MainVia
		}
	}
	return inst, nil
}

// keepPending keeps what a look without the lock saw, for the next look
// that holds it.
func (s *Supervisor) keepPending(name string, rec proc.Instance) {
	s.book.mu.Lock()
	defer s.book.mu.Unlock()
	if s.book.pending == nil {
		s.book.pending = map[string]proc.Instance{}
	}
	s.book.pending[name] = rec
}

// stopOptions is how svc is stopped: stop_timeout, stop_signal, kill_mode,
// stop_command (as the service's user, in its directory, with its
// environment).
func stopOptions(svc *config.Service) proc.StopOptions {
	o := proc.StopOptions{Timeout: svc.StopTimeout, Signal: svc.StopSignal, Main: svc.KillMode == config.KillMain}
	if len(svc.StopCommand) > 0 {
		id, _ := svc.RunAs.Identity() // an unresolvable user fails the command's start, which is recorded
		o.Command = &proc.StopCommand{Argv: svc.StopCommand, Dir: svc.Dir, Env: svc.Env, RunAs: id, Name: svc.Name}
	}
	return o
}
