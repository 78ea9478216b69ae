// Package reaper judges the rows of the agent's ledger that cannot be
// finished any more: at once those of agent instances that are gone
// (heartbeat deleted or stale), the others past their start and timeout; a
// job run whose agent is gone and whose process is proven still the same
// instance has its tree stopped. It prunes the heartbeats of gone instances,
// and the runs older than retention.
//
// What this package must never do: judge a run in flight in this process or
// of a paused service or job, judge a row whose verdict still waits in the
// agent's queue, or signal a process not proven to be the orphaned run's (a
// reused pid).
package reaper
