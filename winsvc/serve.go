package winsvc

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// phase is the part of a service's state the agent reports.
type phase int

const (
	phaseRunning phase = iota + 1
	phaseStopPending
)

// status is one report to the service manager.
type status struct {
	phase      phase
	checkpoint uint32        // advances while a stop is in progress
	waitHint   time.Duration // how long until the next report; 0 when running
}

const (
	// stopWaitHint is the WaitHint of each StopPending report. The SCM waits
	// as long as the checkpoint keeps advancing within it, so the agent's drain
	// (bounded by drain_timeout) is never cut short by a manual stop.
	stopWaitHint = 10 * time.Second
	// checkpointEvery is how often the checkpoint advances while draining:
	// well inside stopWaitHint.
	checkpointEvery = 2 * time.Second
)

// errStoppedUnasked is returned when run returned although nobody asked the
// service to stop. The handler turns it into a failure exit code, so that the
// SCM's recovery actions restart the agent.
var errStoppedUnasked = errors.New("the agent stopped without being asked to")

// serve runs run until stop is closed or run returns, and reports each state
// change. On stop it cancels run's context and keeps reporting StopPending
// with an advancing checkpoint until run has returned: that is what lets the
// drain take as long as drain_timeout. It is the OS-independent core of the
// Windows service handler, so it is tested everywhere.
func serve(run func(context.Context) error, stop <-chan struct{}, report func(status), every time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	report(status{phase: phaseRunning})
	select {
	case err := <-done:
		if err == nil {
			return errStoppedUnasked
		}
		return fmt.Errorf("%w: %w", errStoppedUnasked, err)
	case <-stop:
	}
	cancel()
	return drain(done, report, every)
}

func drain(done <-chan error, report func(status), every time.Duration) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for cp := uint32(1); ; cp++ {
		report(status{phase: phaseStopPending, checkpoint: cp, waitHint: stopWaitHint})
		select {
		case err := <-done:
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		case <-tick.C:
		}
	}
}
