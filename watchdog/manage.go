package watchdog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/state"
)

// ErrUnknownName is returned for a name that is neither a service nor a job
// of the configuration (as an *UnknownNameError, which says what is known).
var ErrUnknownName = errors.New("no such service or job")

// UnknownNameError is the one answer to a name that is no service or job
// of the config, whichever command was given it: "no service or job named
// nosuch; known: proxy, daily-pull". It is an ErrUnknownName.
type UnknownNameError struct {
	Name  string
	What  string // "service or job", "service", "job"
	Known []string
}

func (e *UnknownNameError) Error() string {
	known := "none configured"
	if len(e.Known) > 0 {
		known = strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("no %s named %s; known: %s", e.What, e.Name, known)
}

func (e *UnknownNameError) Is(target error) bool { return target == ErrUnknownName }

// UnknownService is the error for a name that is not a service of cfg.
func UnknownService(cfg *config.Config, name string) error {
	return &UnknownNameError{Name: name, What: "service", Known: ServiceNames(cfg)}
}

// UnknownTarget is the error for a name that is neither a service nor a
// job of cfg.
func UnknownTarget(cfg *config.Config, name string) error {
	return &UnknownNameError{Name: name, What: "service or job", Known: append(ServiceNames(cfg), JobNames(cfg)...)}
}

// UnknownJob is the error for a name that is not a job of cfg.
func UnknownJob(cfg *config.Config, name string) error {
	return &UnknownNameError{Name: name, What: "job", Known: JobNames(cfg)}
}

// ServiceNames lists cfg's services, in file order.
func ServiceNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Services))
	for _, s := range cfg.Services {
		out = append(out, s.Name)
	}
	return out
}

// JobNames lists cfg's jobs, in file order.
func JobNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Jobs))
	for _, j := range cfg.Jobs {
		out = append(out, j.Name)
	}
	return out
}

// StopReport says what `svc-ctl stop` did.
type StopReport struct {
	Service string `json:"service"`
	Paused  bool   `json:"paused"`
	PID     int32  `json:"pid,omitempty"`
	Result  string `json:"result"` // "stopped (3 processes: 3 on SIGTERM, in 41ms)", "no instance recorded", ...
	// Members is every process of the instance's tree and how it ended.
	Members []proc.MemberEnd `json:"members,omitempty"`
	// StopCommand is how the service's stop_command ran, when it has one.
	StopCommand *proc.CommandEnd `json:"stop_command,omitempty"`
	// Left is what still runs after the stop, looked at again: members that
	// outlived it, and the process that holds the health port. Empty: the
	// stop happened.
	Left []Left `json:"left,omitempty"`
}

// Left is a process that still runs after a stop, and why.
type Left struct {
	PID  int32  `json:"pid"`
	Exe  string `json:"exe,omitempty"`
	User string `json:"user,omitempty"`
	// Why it still runs: a member signalled that did not end, or a process
	// holding the health port that is no member (never one, or one once).
	Why string `json:"why"`
}

func (l Left) String() string {
	s := fmt.Sprintf("pid %d", l.PID)
	if l.Exe != "" {
		s += " " + l.Exe
	}
	if l.User != "" {
		s += " (user " + l.User + ")"
	}
	return s + ": " + l.Why
}

// Stopped reports whether the stop happened: nothing of the instance runs,
// and nothing holds its health port.
func (r StopReport) Stopped() bool { return len(r.Left) == 0 }

// Stop states that the person wants the service down: it pauses it with reason
// "stopped" (so the watchdog does not bring it back), then stops every
// process of the recorded instance's tree, each only once its identity is
// proven.
func (s *Supervisor) Stop(ctx context.Context, name string) (StopReport, error) {
	svc := s.Config().Service(name)
	if svc == nil {
		return StopReport{}, UnknownService(s.Config(), name)
	}
	rep := StopReport{Service: name}
	lock, ok, err := state.WaitLock(ctx, s.Paths.Lock(name), svc.StartTimeout+svc.StopTimeout+10*time.Second)
	if err != nil {
		return rep, err
	}
	if !ok {
		return rep, fmt.Errorf("service %s is locked by another svc-ctl process for too long; try again", name)
	}
	defer lock.Unlock()
	if err := state.WritePause(s.Paths.Paused(name), state.Pause{At: s.now(), Reason: state.StopReason, By: s.by()}); err != nil {
		return rep, fmt.Errorf("pause %s: %w", name, err)
	}
	rep.Paused = true
	s.markStopped(name)
	return rep, s.stopRecorded(ctx, svc, &rep)
}

// StopInstance stops every process of the recorded instance of svc, each
// identity-checked, under the service's lock, and pauses nothing: for a
// service a reload removed from the config (`svc-ctl reload
// --stop-removed`), whose definition the caller still has.
func (s *Supervisor) StopInstance(ctx context.Context, svc *config.Service) (StopReport, error) {
	rep := StopReport{Service: svc.Name}
	lock, ok, err := state.WaitLock(ctx, s.Paths.Lock(svc.Name), svc.StartTimeout+svc.StopTimeout+10*time.Second)
	if err != nil {
		return rep, err
	}
	if !ok {
		return rep, fmt.Errorf("service %s is locked by another svc-ctl process for too long", svc.Name)
	}
	defer lock.Unlock()
	return rep, s.stopRecorded(ctx, svc, &rep)
}

// stopRecorded stops the recorded instance's tree as the service says
// (stop_command, stop_signal, kill_mode, stop_timeout; the caller holds the
// service's lock), then looks again: what still runs is in rep.Left.
func (s *Supervisor) stopRecorded(ctx context.Context, svc *config.Service, rep *StopReport) error {
	name := svc.Name
	inst, err := s.record(name)
	if errors.Is(err, os.ErrNotExist) {
		rep.Result = "no instance recorded"
		s.portLeft(ctx, svc, proc.Instance{}, rep)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read pid file: %w", err)
	}
	rep.PID = inst.PID
	if s.OnReplace != nil {
		s.OnReplace(name, inst.Identity)
	}
	r, err := proc.StopWith(ctx, inst, stopOptions(svc))
	rep.Members, rep.StopCommand = r.Members, r.Command
	var stopErr error
	switch {
	case errors.Is(err, proc.ErrNotOurs):
		rep.Result = fmt.Sprintf("pid %d is not our instance any more (reused after the instance ended): not signalled", inst.PID)
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("stop pid %d: %w", inst.PID, err)
	case err != nil:
		rep.Result = fmt.Sprintf("stop pid %d: %v", inst.PID, err)
		stopErr = err
	case r.AlreadyGone:
		rep.Result = fmt.Sprintf("pid %d: no process of the instance was running", inst.PID)
	default:
		rep.Result = "stopped (" + r.String() + ")"
	}
	// Look again, with every proof: the stop is what the OS says now.
	if t, err := proc.Members(r.Record()); err == nil {
		for _, m := range t.Members {
			why := "a member of the instance, signalled, still running"
			if stopErr != nil {
				why += ": " + stopErr.Error()
			}
			if m.Stopped {
				why += " (stopped by a signal)"
			}
			rep.Left = append(rep.Left, Left{PID: m.PID, Exe: m.Exe, User: proc.UserOf(m.PID), Why: why})
		}
	}
	s.portLeft(ctx, svc, inst, rep)
	s.Log.Info("service.stopped_by_hand", "service", name, "service_pid", inst.PID, "result", rep.Result, "left", len(rep.Left))
	return nil
}

// portLeft adds to rep.Left the process that still holds the service's
// health port, when the check is a local port (an exec or remote check
// judges what the service does not own by design, and is not used): it
// names it and says whether it ever was a member of the instance (inst's
// record) — never signalled here either way.
func (s *Supervisor) portLeft(ctx context.Context, svc *config.Service, inst proc.Instance, rep *StopReport) {
	addr, port, ok := healthPort(svc.Health)
	if !ok || !PortHeld(ctx, addr) {
		return
	}
	h := holderOf(ctx, port, nil)
	for _, l := range rep.Left {
		if l.PID == h.PID && h.PID > 0 {
			return // already named as a member that lives on
		}
	}
	why := fmt.Sprintf("holds the health port %d; never a member of this instance: not signalled", port)
	if wasMember(inst, h) {
		why = fmt.Sprintf("holds the health port %d; it was a member of this instance, and is not one any more: not signalled", port)
	}
	if h.PID <= 0 {
		rep.Left = append(rep.Left, Left{Why: fmt.Sprintf("the health port %d is held by %s", port, h)})
		return
	}
	rep.Left = append(rep.Left, Left{PID: h.PID, Exe: h.Exe, User: h.User, Why: why})
}

// wasMember reports whether h's process is one inst's record names (its
// leader, main process or a remembered member), by identity.
func wasMember(inst proc.Instance, h *PortHolder) bool {
	if h == nil || h.PID <= 0 || h.id.PID != h.PID {
		return false
	}
	if inst.Identity.Same(h.id) || (inst.Main != nil && inst.Main.Same(h.id)) {
		return true
	}
	for _, k := range inst.Remembered {
		if k.Same(h.id) {
			return true
		}
	}
	return false
}

// PauseTarget writes the pause sentinel of a service or job.
func (s *Supervisor) PauseTarget(name string, d time.Duration, reason string) (state.Pause, error) {
	path, err := s.pausePath(name)
	if err != nil {
		return state.Pause{}, err
	}
	p := state.Pause{At: s.now(), Reason: reason, By: s.by()}
	if d > 0 {
		u := p.At.Add(d)
		p.Until = &u
	}
	if err := state.WritePause(path, p); err != nil {
		return p, fmt.Errorf("pause %s: %w", name, err)
	}
	if s.Config().Service(name) != nil {
		s.markState(name, state.Paused, "paused: "+reason)
	}
	return p, nil
}

// ResumeReport says what `svc-ctl resume` did.
type ResumeReport struct {
	Name          string `json:"name"`
	WasPaused     bool   `json:"was_paused"`
	ClearedGiveUp bool   `json:"cleared_given_up"`
}

// Resume removes the pause sentinel and clears given-up and backoff, so the
// next cycle tries again.
func (s *Supervisor) Resume(ctx context.Context, name string) (ResumeReport, error) {
	rep := ResumeReport{Name: name}
	path, err := s.pausePath(name)
	if err != nil {
		return rep, err
	}
	if p, _ := state.ReadPause(path); p != nil {
		rep.WasPaused = true
	}
	if err := state.RemovePause(path); err != nil {
		return rep, err
	}
	svc := s.Config().Service(name)
	if svc == nil {
		return rep, nil
	}
	lock, ok, err := state.WaitLock(ctx, s.Paths.Lock(name), svc.StartTimeout+svc.StopTimeout+10*time.Second)
	if err != nil || !ok {
		return rep, fmt.Errorf("resume %s: service lock busy; the pause is removed, run resume again to clear given-up", name)
	}
	defer lock.Unlock()
	st, _ := state.LoadService(s.Paths.StateFile(name))
	rep.ClearedGiveUp = st.State == state.GivenUp
	st.Failures, st.BackoffUntil, st.GivenUpAt = 0, time.Time{}, time.Time{}
	st.RecentStarts = nil // a person's resume begins anew, as a start does
	why := "resumed by hand"
	if s.By != "" {
		why += " (" + s.By + ")"
	}
	st.MoveTo(state.Unknown, why, s.now())
	return rep, state.SaveService(s.Paths.StateFile(name), st, true)
}

// by is who a pause sentinel names: Supervisor.By, else the person at the
// terminal.
func (s *Supervisor) by() string {
	if s.By != "" {
		return s.By
	}
	return state.Who()
}

func (s *Supervisor) pausePath(name string) (string, error) {
	switch {
	case s.Config().Service(name) != nil:
		return s.Paths.Paused(name), nil
	case s.Config().Job(name) != nil:
		return s.Paths.JobPaused(name), nil
	}
	return "", UnknownTarget(s.Config(), name)
}

// markStopped records a person's stop: the service is stopped, and what
// served it is gone on purpose (starting it again is no restart).
func (s *Supervisor) markStopped(name string) {
	path := s.Paths.StateFile(name)
	st, _ := state.LoadService(path)
	st.MoveTo(state.Stopped, "stopped by hand", s.now())
	st.InstanceHealthyAt = time.Time{}
	if err := state.SaveService(path, st, true); err != nil {
		s.Log.Warn("state.write_failed", "service", name, "err", err)
	}
}

// markState records a state change made by hand (caller holds the lock or
// accepts a race with a cycle, which rewrites the state anyway).
func (s *Supervisor) markState(name, to, why string) {
	path := s.Paths.StateFile(name)
	st, _ := state.LoadService(path)
	st.MoveTo(to, why, s.now())
	if err := state.SaveService(path, st, true); err != nil {
		s.Log.Warn("state.write_failed", "service", name, "err", err)
	}
}
