//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// WatchExit returns a channel that is closed when id's process exits. It is
// for processes svc-ctl did not spawn in this run (after an agent restart);
// for a Child, use Done. id must Match: otherwise ErrNotOurs or ErrGone.
//
// BSD/darwin: kqueue EVFILT_PROC NOTE_EXIT is registered first and the
// identity checked second: the registration is bound to the process that
// held the PID, so once the identity matches it watches that process. The
// waiting goroutine blocks in kevent (one thread per watch) until the
// process exits.
func WatchExit(id Identity) (<-chan struct{}, error) {
	if id.PID <= 0 {
		return nil, fmt.Errorf("watch pid %d: %w", id.PID, ErrInvalidIdentity)
	}
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("watch pid %d: kqueue: %w", id.PID, err)
	}
	var ev unix.Kevent_t
	unix.SetKevent(&ev, int(id.PID), unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	_, err = unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil)
	if err == nil {
		err = verifyWatch(id)
	} else if errors.Is(err, unix.ESRCH) {
		err = fmt.Errorf("watch pid %d: %w", id.PID, ErrGone)
	} else {
		err = fmt.Errorf("watch pid %d: kevent: %w", id.PID, err)
	}
	if err != nil {
		unix.Close(kq)
		return nil, err
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		defer unix.Close(kq)
		events := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, events, nil)
			if n > 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
				return
			}
		}
	}()
	return ch, nil
}
