package proc

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// WatchExit returns a channel that is closed when id's process exits. It is
// for processes svc-ctl did not spawn in this run (after an agent restart);
// for a Child, use Done. id must Match: otherwise ErrNotOurs or ErrGone.
//
// Linux: a pidfd (pidfd_open(2)) is opened first and the identity checked
// second. A pidfd names one process for good, so once the identity matches
// the pidfd is that process, even if the PID is reused later. The pidfd
// becomes readable when the process exits; the runtime's poller waits for
// it, so a watch costs a parked goroutine, not a thread. The goroutine lives
// until the process exits.
func WatchExit(id Identity) (<-chan struct{}, error) {
	if id.PID <= 0 {
		return nil, fmt.Errorf("watch pid %d: %w", id.PID, ErrInvalidIdentity)
	}
	fd, err := unix.PidfdOpen(int(id.PID), 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return nil, fmt.Errorf("watch pid %d: %w", id.PID, ErrGone)
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
		return pollWatch(id)
	case err != nil:
		return nil, fmt.Errorf("watch pid %d: pidfd_open: %w", id.PID, err)
	}
	if err := verifyWatch(id); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// Non-blocking, so os.NewFile registers it with the runtime poller.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("watch pid %d: %w", id.PID, err)
	}
	f := os.NewFile(uintptr(fd), fmt.Sprintf("pidfd:%d", id.PID))
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		defer f.Close()
		waitPidfd(f)
	}()
	return ch, nil
}

// waitPidfd returns once the pidfd is readable, i.e. the process exited.
func waitPidfd(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		if err := rc.Read(func(fd uintptr) bool { return readable(int(fd), 0) }); err == nil {
			return
		}
	}
	// Not pollable by the runtime: block this goroutine's thread instead.
	fd := int(f.Fd())
	for !readable(fd, -1) {
	}
}

// readable polls fd for POLLIN, waiting up to timeoutMs (-1 = forever).
// An error other than EINTR counts as readable so that no caller spins.
func readable(fd, timeoutMs int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, timeoutMs)
	if errors.Is(err, unix.EINTR) {
		return false
	}
	return err != nil || n > 0
}
