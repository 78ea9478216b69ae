package agent

import (
	"context"
	"time"

	"svcctl/agent/reaper"
	"svcctl/runtrace"
)

// housekeeping runs at start: the reaper, then the daily prune.
func (a *Agent) housekeeping(ctx context.Context) {
	a.reap(ctx)
	a.prune(ctx)
}

// reaper judges the rows that cannot finish any more and prunes the old
// ones (agent/reaper), on this agent's ledger; nil when there is none.
func (a *Agent) reaper() *reaper.Reaper {
	if a.store == nil {
		return nil
	}
	r := &reaper.Reaper{Store: a.store, Log: a.log, Config: a.config, Paths: a.paths, Self: a.instance, Busy: a.runningHere}
	if q := a.ledger.Queue; q != nil {
		r.Flush = func(ctx context.Context) (bool, int) { return q.Flush(ctx), q.Health().Pending }
	}
	return r
}

func (a *Agent) reap(ctx context.Context) {
	if r := a.reaper(); r != nil {
		r.Reap(ctx)
	}
}

func (a *Agent) prune(ctx context.Context) {
	if r := a.reaper(); r != nil {
		r.Prune(ctx)
	}
}

// runningHere is the set of job ids with a run in flight in this process:
// their rows are not the reaper's to judge by the clock.
func (a *Agent) runningHere() map[string]bool {
	busy := map[string]bool{}
	for _, name := range a.sup.InFlight() {
		busy[runtrace.WatchdogID(name)] = true
	}
	for _, id := range a.jobs.InFlight() {
		busy[id] = true
	}
	return busy
}

func (a *Agent) reapLoop(ctx context.Context)  { every(ctx, a.o.ReapEvery, a.reap) }
func (a *Agent) pruneLoop(ctx context.Context) { every(ctx, 24*time.Hour, a.prune) }
