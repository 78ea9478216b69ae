// Package state is svc-ctl's state directory: Paths, which names every file
// in it; a service's remembered state (state.json); the pause sentinels;
// watchdog.last.json; the per-service lock every svc-ctl process shares; and
// the agent lock (one agent per state directory).
//
// These are plain files, not rows in the ledger, on purpose: supervision must
// keep working when run_trace is damaged or locked.
//
// What this package must never do: join a state path outside Paths, write a
// file other than atomically and 0600 (directories 0700), or decide anything
// about a service: it stores what the watchdog decided and answers what is
// stored.
package state
