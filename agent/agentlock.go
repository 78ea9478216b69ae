package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// agentLock is agent.lock, an OS file lock: one agent per state dir. The OS
// drops it when the holder dies, so a crashed agent never blocks the next.
// The holder's pid is kept beside it in agent.pid (a file locked on Windows
// cannot be read by others, so the pid cannot live inside the lock file).
type agentLock struct {
	fl      *flock.Flock
	pidPath string
}

func lockAgent(p Paths) (*agentLock, error) {
	fl := flock.New(p.AgentLock(), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p.AgentLock(), err)
	}
	pidPath := filepath.Join(p.State, "agent.pid")
	if !ok {
		pid, _ := readAgentPID(pidPath)
		return nil, &AlreadyRunningError{StateDir: p.State, PID: pid}
	}
	if err := fsutil.WriteFileAtomic(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("write %s: %w", pidPath, err)
	}
	return &agentLock{fl: fl, pidPath: pidPath}, nil
}

func readAgentPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, errors.New("agent.pid is damaged")
	}
	return n, nil
}

func (l *agentLock) release() {
	if l == nil {
		return
	}
	os.Remove(l.pidPath)
	l.fl.Unlock()
}
