// Package agent is svc-ctl's long-running process: one watchdog loop per
// service, the fast path on exits, the sleep detector, the scheduled jobs
// (and `svc-ctl exec`, which records a job run the same way), the L2 net
// around every goroutine, the heartbeat, metrics, and the drain on stop.
//
// What this package must never do: let a panic end supervision (unless
// on_panic = "exit" says so), start a cycle or a job while draining, leave a
// run `running` when it stops (in-flight runs are finished, interrupted at
// drain_timeout), stop the services it supervises when it stops, run a second
// instance of a job while the first has not been reaped, or run a shell.
package agent
