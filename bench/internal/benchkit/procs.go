package benchkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"svcctl/proc"
	"svcctl/state"
)

// Agent is a running `svc-ctl agent` process.
type Agent struct {
	PID    int
	Setup  Setup
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
}

// StartAgent starts `svc-ctl agent --config ... --max-stagger ...` and
// registers its stop (SIGTERM, then SIGKILL) for cleanup.
func (k *Kit) StartAgent(svcctl string, s Setup, maxStagger time.Duration) (*Agent, error) {
	a := &Agent{Setup: s, done: make(chan struct{})}
	a.cmd = exec.Command(svcctl, "agent", "--config", s.Config, "--max-stagger", maxStagger.String())
	a.cmd.Stderr = &a.stderr
	if err := a.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start agent: %w", err)
	}
	a.PID = a.cmd.Process.Pid
	go func() { a.cmd.Wait(); close(a.done) }()
	k.Defer(func() { a.Stop(10 * time.Second) })
	return a, nil
}

// Exited reports whether the agent process has ended.
func (a *Agent) Exited() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits up to timeout for the drain, then SIGKILLs.
// The agent leaves its services running (by design): stop them with
// KillRecorded.
func (a *Agent) Stop(timeout time.Duration) error {
	if a.Exited() {
		return nil
	}
	if err := terminate(a.cmd.Process); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal agent pid %d: %w", a.PID, err)
	}
	select {
	case <-a.done:
		return nil
	case <-time.After(timeout):
	}
	a.cmd.Process.Kill()
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
	}
	return fmt.Errorf("agent pid %d did not stop within %s of SIGTERM; killed", a.PID, timeout)
}

// Stderr is what the agent wrote to stderr (its log goes to agent.log).
func (a *Agent) Stderr() string { return a.stderr.String() }

// ServiceIdentity reads the recorded instance of a service.
func ServiceIdentity(stateDir, name string) (proc.Identity, error) {
	return proc.ReadPidFile(state.Paths{State: stateDir}.Pid(name))
}

// KillRecorded kills every process of every service instance recorded
// under state (each identity-checked: a PID reused by another program is
// never signalled) and waits for each tree to be gone.
func KillRecorded(state string) {
	ms, _ := filepath.Glob(filepath.Join(state, "services", "*", "pid"))
	for _, m := range ms {
		inst, err := proc.ReadInstance(m)
		if err != nil {
			continue
		}
		proc.KillTree(inst)
	}
}

// KillIdentity SIGKILLs id's process if it is still that process, and waits
// up to timeout for it to be gone.
func KillIdentity(id proc.Identity, timeout time.Duration) error {
	signalled, err := SignalKill(id)
	if err != nil || !signalled {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return PollUntil(ctx, 2*time.Millisecond, "pid "+strconv.Itoa(int(id.PID))+" gone", func() bool { return !proc.Alive(id.PID) })
}

// PollUntil calls cond every `every` until it is true or ctx ends.
func PollUntil(ctx context.Context, every time.Duration, what string, cond func() bool) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, context.Cause(ctx))
		case <-t.C:
		}
	}
	return nil
}

// SignalKill sends SIGKILL to id's process if it is still that process, and
// returns at once; signalled is false when it was gone or not ours.
func SignalKill(id proc.Identity) (signalled bool, err error) {
	ok, err := proc.Match(id)
	if err != nil || !ok {
		return false, err
	}
	p, err := os.FindProcess(int(id.PID))
	if err != nil {
		return false, fmt.Errorf("find pid %d: %w", id.PID, err)
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return false, fmt.Errorf("kill pid %d: %w", id.PID, err)
	}
	return true, nil
}

// IdentityOfPID reads the identity of a live process.
func IdentityOfPID(pid int) (proc.Identity, error) {
	id, err := proc.IdentityOf(int32(pid))
	if err != nil {
		return id, fmt.Errorf("identity of pid %d: %w", pid, err)
	}
	return id, nil
}

// SignalTerm sends SIGTERM (on Windows: kills) to id's process if it is
// still that process; signalled is false when it was gone or not ours.
func SignalTerm(id proc.Identity) (signalled bool, err error) {
	ok, err := proc.Match(id)
	if err != nil || !ok {
		return false, err
	}
	p, err := os.FindProcess(int(id.PID))
	if err != nil {
		return false, fmt.Errorf("find pid %d: %w", id.PID, err)
	}
	if err := terminate(p); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return false, fmt.Errorf("signal pid %d: %w", id.PID, err)
	}
	return true, nil
}

// StopIdentity asks id's process to end (SIGTERM), waits up to grace for it
// to be gone, then SIGKILLs it and waits up to 5 s more. Both signals are
// sent only while the PID is still that process.
func StopIdentity(id proc.Identity, grace time.Duration) error {
	signalled, err := SignalTerm(id)
	if err != nil || !signalled {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if PollUntil(ctx, 5*time.Millisecond, "pid gone", func() bool { return !proc.Alive(id.PID) }) == nil {
		return nil
	}
	return KillIdentity(id, 5*time.Second)
}
