package probe

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"

	"svcctl/internal/child"
)

// groupTree is the command and its process group (pgid = its pid).
type groupTree struct{ cmd *child.Cmd }

func newTree(cmd *child.Cmd) *groupTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &groupTree{cmd: cmd}
}

func (t *groupTree) start() error { return t.cmd.Start() }

// awaitExit returns once the command has exited, without reaping it: its
// zombie keeps the pid, so the group id stays ours until cmd.Wait.
func (t *groupTree) awaitExit() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, t.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// kill sends SIGKILL to the command's whole process group.
func (t *groupTree) kill() error { return killGroup(t.cmd.Process.Pid) }

func (t *groupTree) close() {}

func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}
