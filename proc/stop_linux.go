package proc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// pidfdKiller signals through pidfds. A pidfd names one process for good:
// it is opened first and the member's start ticks read second, so once they
// match, every signal sent through it reaches that process and no other,
// whatever happens to the PID. Where pidfd_open is missing (Linux before
// 5.3, or a seccomp filter), the identity is re-read right before kill(2).
type pidfdKiller struct {
	inst Instance
	fds  map[int32]int // member pid -> pidfd (-1: none, kill(2) after a re-check)
}

func newKiller(inst Instance) (killer, error) {
	return &pidfdKiller{inst: inst, fds: map[int32]int{}}, nil
}

func (k *pidfdKiller) defaultSignal() string { return "SIGTERM" }

func (k *pidfdKiller) signal(m Member, name string) error {
	sig, err := signalNamed(name)
	if err != nil {
		return err
	}
	return k.send(m, sig)
}

func (k *pidfdKiller) resume(m Member)     { _ = k.send(m, unix.SIGCONT) }
func (k *pidfdKiller) kill(m Member) error { return k.send(m, unix.SIGKILL) }

// killAll SIGKILLs the instance cgroup at once: forks in flight included.
func (k *pidfdKiller) killAll() bool { return k.inst.Cgroup != "" && killCgroup(k.inst.Cgroup) }

// open returns m's pidfd after proving it is m.
func (k *pidfdKiller) open(m Member) (int, error) {
	if fd, ok := k.fds[m.PID]; ok {
		return fd, nil
	}
	fd, err := unix.PidfdOpen(int(m.PID), 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return -1, fmt.Errorf("pid %d: %w", m.PID, ErrGone)
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM), errors.Is(err, unix.EINVAL):
		fd = -1
	case err != nil:
		return -1, fmt.Errorf("pidfd_open %d: %w", m.PID, err)
	}
	if err := k.check(m); err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return -1, err
	}
	k.fds[m.PID] = fd
	return fd, nil
}

// check proves that the process at m.PID is m: same start, alive.
func (k *pidfdKiller) check(m Member) error {
	st, err := inspect(m.Identity)
	switch {
	case err != nil:
		return err
	case st == stateGone:
		return fmt.Errorf("pid %d: %w", m.PID, ErrGone)
	case st == stateNotOurs:
		return fmt.Errorf("pid %d: %w", m.PID, ErrNotOurs)
	}
	return nil
}

func (k *pidfdKiller) send(m Member, sig unix.Signal) error {
	if m.PID <= 1 {
		return fmt.Errorf("pid %d: %w", m.PID, ErrInvalidIdentity)
	}
	fd, err := k.open(m)
	if err != nil {
		return err
	}
	if fd >= 0 {
		err = unix.PidfdSendSignal(fd, sig, nil, 0)
	} else if err = k.check(m); err == nil {
		err = unix.Kill(int(m.PID), sig)
	}
	if errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("pid %d: %w", m.PID, ErrGone)
	}
	if err != nil {
		return fmt.Errorf("%s to pid %d: %w", unix.SignalName(sig), m.PID, err)
	}
	return nil
}

// wait polls the pidfds of live (readable = exited) for up to d. Members
// without a pidfd are re-checked when it returns.
func (k *pidfdKiller) wait(ctx context.Context, live []Member, d time.Duration) {
	fds := make([]unix.PollFd, 0, len(live))
	for _, m := range live {
		if fd, ok := k.fds[m.PID]; ok && fd >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		}
	}
	if len(fds) < len(live) {
		d = min(d, pollInterval)
	}
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	if d <= 0 {
		return
	}
	if len(fds) == 0 {
		time.Sleep(d)
		return
	}
	_, _ = unix.Poll(fds, int(d.Milliseconds())+1) // EINTR: the caller looks again
}

func (k *pidfdKiller) close() {
	for _, fd := range k.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// releaseTree removes the instance cgroup once the tree is gone.
func releaseTree(inst Instance) { removeCgroup(inst.Cgroup) }
