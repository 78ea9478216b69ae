//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// startDetached starts the command as the leader of a new session: no
// controlling terminal, its own process group (pgid == pid, which Stop
// signals), and no tie to the agent, so it outlives it.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}
