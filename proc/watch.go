package proc

import (
	"fmt"
	"time"
)

// watchPollInterval paces the identity re-checks of pollWatch.
const watchPollInterval = 500 * time.Millisecond

// verifyWatch proves id after the OS handle was opened (see WatchExit): the
// handle then refers to this very process, whatever happens to the PID.
func verifyWatch(id Identity) error {
	st, err := inspect(id)
	switch {
	case err != nil:
		return fmt.Errorf("watch pid %d: %w", id.PID, err)
	case st == stateGone:
		return fmt.Errorf("watch pid %d: %w", id.PID, ErrGone)
	case st == stateNotOurs:
		return fmt.Errorf("watch pid %d: %w", id.PID, ErrNotOurs)
	}
	return nil
}

// pollWatch is the fallback where the kernel offers no exit notification
// (Linux before 5.3, or pidfd_open blocked by a seccomp filter): it re-checks
// the identity every watchPollInterval.
func pollWatch(id Identity) (<-chan struct{}, error) {
	if err := verifyWatch(id); err != nil {
		return nil, err
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		t := time.NewTicker(watchPollInterval)
		defer t.Stop()
		for range t.C {
			if !stillOurs(id) {
				return
			}
		}
	}()
	return ch, nil
}
