package watchdog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/state"
)

// ErrUnknownName is returned for a name that is neither a service nor a job
// of the configuration.
var ErrUnknownName = errors.New("no such service or job")

// StopReport says what `svc-ctl stop` did.
type StopReport struct {
	Service string `json:"service"`
	Paused  bool   `json:"paused"`
	PID     int32  `json:"pid,omitempty"`
	Result  string `json:"result"` // "stopped (3 processes: 3 on SIGTERM, in 41ms)", "no instance recorded", ...
	// Members is every process of the instance's tree and how it ended.
	Members []proc.MemberEnd `json:"members,omitempty"`
}

// Stop states that the person wants the service down: it pauses it with reason
// "stopped" (so the watchdog does not bring it back), then stops every
// process of the recorded instance's tree, each only once its identity is
// proven.
func (s *Supervisor) Stop(ctx context.Context, name string) (StopReport, error) {
	svc := s.Config().Service(name)
	if svc == nil {
		return StopReport{}, fmt.Errorf("%w: %q (services: %s)", ErrUnknownName, name, s.serviceNames())
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
	if err := state.WritePause(s.Paths.Paused(name), state.Pause{At: s.now(), Reason: "stopped", By: s.by()}); err != nil {
		return rep, fmt.Errorf("pause %s: %w", name, err)
	}
	rep.Paused = true
	s.markState(name, state.Paused, "stopped by hand")
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

// stopRecorded stops the recorded instance's tree (the caller holds the
// service's lock) and says how in rep.
func (s *Supervisor) stopRecorded(ctx context.Context, svc *config.Service, rep *StopReport) error {
	name := svc.Name
	inst, err := proc.ReadInstance(s.Paths.Pid(name))
	if errors.Is(err, os.ErrNotExist) {
		rep.Result = "no instance recorded"
		return nil
	}
	if err != nil {
		return fmt.Errorf("read pid file: %w", err)
	}
	rep.PID = inst.PID
	if s.OnReplace != nil {
		s.OnReplace(name, inst.Identity)
	}
	r, err := proc.StopTree(ctx, inst, svc.StopTimeout)
	rep.Members = r.Members
	switch {
	case errors.Is(err, proc.ErrNotOurs):
		rep.Result = fmt.Sprintf("pid %d is not our instance any more (reused after the instance ended): not signalled", inst.PID)
	case err != nil:
		return fmt.Errorf("stop pid %d: %w", inst.PID, err)
	case r.AlreadyGone:
		rep.Result = fmt.Sprintf("pid %d: no process of the instance was running", inst.PID)
	default:
		rep.Result = "stopped (" + r.String() + ")"
	}
	s.Log.Info("service.stopped_by_hand", "service", name, "service_pid", inst.PID, "result", rep.Result)
	return nil
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
	return "", fmt.Errorf("%w: %q (services: %s)", ErrUnknownName, name, s.serviceNames())
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

func (s *Supervisor) serviceNames() string {
	if len(s.Config().Services) == 0 {
		return "none configured"
	}
	out := ""
	for i, svc := range s.Config().Services {
		if i > 0 {
			out += ", "
		}
		out += svc.Name
	}
	return out
}
