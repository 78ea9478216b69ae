package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svcctl/runtrace"
)

// errDrainTimeout is the cause given to runs cut short by the drain deadline.
var errDrainTimeout = errors.New("agent stopping: drain_timeout reached")

// drain stops the agent without losing anything: no new cycles (a trigger
// that arrives is skipped/draining), in-flight runs may finish up to
// drain_timeout, what is still running then is finished failed/interrupted,
// the heartbeat is deleted. Supervised services are not stopped.
func (a *Agent) drain(cancelRuns context.CancelCauseFunc) error {
	a.draining.Store(true)
	a.writeReport()               // status says "draining" from now on
	a.requestServer().RefuseAll() // nobody will take them now
	a.log.Info("agent.draining", "in_flight", len(a.sup.InFlight()), "drain_timeout", a.config().Agent.DrainTimeout.String())
	done := make(chan struct{})
	a.net.GoOnce("drain-wait", func() {
		a.net.WaitLoops()
		a.jobs.Wait()
		close(done)
	}, nil)
	timer := time.NewTimer(a.config().Agent.DrainTimeout)
	defer timer.Stop()
	var errs []error
	select {
	case <-done:
	case <-timer.C:
		cancelRuns(errDrainTimeout)
		errs = append(errs, a.interruptInFlight())
		// Give the cut-short runs a moment to notice; they cannot overwrite
		// the verdict (finish is WHERE outcome = 'running').
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
	cancelRuns(nil)
	a.waitPings()
	if a.ledger.Queue != nil {
		if err := a.ledger.Queue.DeleteHeartbeat(context.Background(), a.instance); err != nil {
			errs = append(errs, fmt.Errorf("delete heartbeat: %w", err))
		}
	}
	err := errors.Join(errs...)
	a.log.Info("agent.stopped", "clean", err == nil)
	return err
}

func (a *Agent) interruptInFlight() error {
	var errs []error
	now := time.Now().UTC()
	ids := a.sup.InFlight()
	for id, ref := range a.jobs.InFlight() {
		ids[id] = ref
	}
	for id, name := range ids {
		err := a.rec.Finish(context.Background(), id, runtrace.OutcomeFailed, runtrace.ReasonInterrupted,
			map[string]any{"why": "still running at drain_timeout", "drain_timeout": a.config().Agent.DrainTimeout.String()}, now)
		if err != nil && !errors.Is(err, runtrace.ErrAlreadyFinished) {
			errs = append(errs, fmt.Errorf("finish run %d of %s: %w", id, name, err))
		}
		a.log.Warn("run.interrupted", "run_id", id, "name", name)
	}
	return errors.Join(errs...)
}
