//go:build unix && !linux

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

// awaitExit returns once the command has exited, without reaping it
// (kqueue NOTE_EXIT): its zombie keeps the pid, so the group id stays ours
// until cmd.Wait. Where kqueue fails, the group is killed after the reap
// instead (the previous behaviour, a narrow reuse window).
func (t *groupTree) awaitExit() {
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, t.cmd.Process.Pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		return // ESRCH: it already exited (a zombie now)
	}
	events := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, nil, events, nil)
		if n > 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
			return
		}
	}
}

func (t *groupTree) kill() error { return killGroup(t.cmd.Process.Pid) }

func (t *groupTree) close() {}

func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
