package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gofrs/flock"

	"svcctl/internal/fsutil"
)

// AlreadyRunningError is returned when another agent holds the state dir.
type AlreadyRunningError struct {
	StateDir string
	PID      int // 0 when unknown
}

func (e *AlreadyRunningError) Error() string {
	who := "another agent"
	if e.PID > 0 {
		who = fmt.Sprintf("another agent (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is already running on state dir %s; stop it first ('svc-ctl status' shows it)", who, e.StateDir)
}

// AgentLock is agent.lock, an OS file lock: one agent per state dir. The OS
// drops it when the holder dies, so a crashed agent never blocks the next.
// The holder's pid is kept beside it in agent.pid (a file locked on Windows
// cannot be read by others, so the pid cannot live inside the lock file).
type AgentLock struct {
	fl      *flock.Flock
	pidPath string
}

// LockAgent takes the agent lock of p's state dir and records this process's
// pid beside it; an agent already holding it is an *AlreadyRunningError.
func LockAgent(p Paths) (*AgentLock, error) {
	fl := newFlock(p.AgentLock())
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p.AgentLock(), err)
	}
	pidPath := p.AgentPID()
	if !ok {
		pid, _ := ReadAgentPID(p)
		return nil, &AlreadyRunningError{StateDir: p.State, PID: pid}
	}
	if err := fsutil.WriteFileAtomic(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("write %s: %w", pidPath, err)
	}
	return &AgentLock{fl: fl, pidPath: pidPath}, nil
}

// ReadAgentPID reads the pid the lock holder recorded.
func ReadAgentPID(p Paths) (int, error) {
	b, err := fsutil.ReadFile(p.AgentPID())
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, errors.New("agent.pid is damaged")
	}
	return n, nil
}

// Release drops the lock and removes the pid file; a nil lock is fine.
func (l *AgentLock) Release() {
	if l == nil {
		return
	}
	os.Remove(l.pidPath)
	l.fl.Unlock()
}

// AgentLockHeld reports whether an agent holds p's agent lock, by trying it
// without keeping it. A lock this process may not open is an error (a
// *DeniedError), never "not held": a normal user must not be told that a
// root agent is stopped.
func AgentLockHeld(p Paths) (bool, error) {
	if _, err := os.Lstat(p.AgentLock()); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, Denied(p.AgentLock(), err)
	}
	fl := newFlock(p.AgentLock())
	ok, err := fl.TryLock()
	if err != nil {
		return false, Denied(p.AgentLock(), err)
	}
	if ok {
		fl.Unlock()
		return false, nil
	}
	return true, nil
}
