package child

import (
	"context"
	"errors"
	"time"
)

// Orphan is a zombie child of this process that no Cmd started: a process
// re-parented to it (it is a subreaper) that exited, now reaped.
type Orphan struct {
	PID  int32
	Exit string // "exited with code 3", "killed by SIGKILL"
}

// sweepEvery paces the reaper when no SIGCHLD comes: a signal that arrived
// while the last sweep ran, or a zombie left because its pid was still
// registered by a Cmd whose Wait had just reaped the pid's previous owner.
const sweepEvery = time.Minute

// ErrUnsupported: this OS has no child subreaper (only Linux does).
var ErrUnsupported = errors.ErrUnsupported

// Reap reaps orphans (see Sweep) at every SIGCHLD and every sweepEvery
// until ctx ends, telling reaped of each. Where the OS has no subreaper it
// returns when ctx ends, having done nothing: orphans go to the system's
// init there, which reaps them.
func Reap(ctx context.Context, reaped func(Orphan)) {
	sigs, stop := notifyChild()
	defer stop()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		for _, o := range Sweep() {
			if reaped != nil {
				reaped(o)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-sigs:
		case <-t.C:
		}
	}
}
