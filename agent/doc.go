// Package agent is svc-ctl's long-running process, its lifecycle only: the
// start (the lock, the log, the ledger, what a previous agent left), one
// watchdog loop per service, the fast path on exits, the heartbeat, the
// answer to a host's sleep, reload, the request handlers and the drain on
// stop. Each part that is an idea of its own is a package under it, handed
// what it needs: jobs (the scheduled jobs and `svc-ctl exec`/`run`), logcap,
// metrics, l2 (the net around every goroutine), reaper, ledger, requests,
// reloadplan, selfping, agentlog, scope, sleep, startcheck, lean.
//
// What this package must never do: let a panic end supervision (unless
// on_panic = "exit" says so), start a cycle or a job while draining, leave a
// run `running` when it stops (in-flight runs are finished, interrupted at
// drain_timeout), stop the services it supervises when it stops, run a second
// instance of a job while the first has not been reaped, or run a shell.
package agent
