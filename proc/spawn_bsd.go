//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// sessionOwner starts the leader in a session of its own (setsid): no
// controlling terminal, no tie to the agent, and the session id that owns
// its tree.
type sessionOwner struct{}

func prepareOwner(SpawnSpec) (owner, error) { return sessionOwner{}, nil }

func (sessionOwner) start(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}

func (sessionOwner) cgroup() string  { return "" }
func (sessionOwner) job() string     { return "" }
func (sessionOwner) notes() []string { return nil }
func (sessionOwner) abandon()        {}
func (sessionOwner) close()          {}
