// Package jobs runs svc-ctl's scheduled jobs: one loop per job that sleeps
// until its next slot (catching up after a sleep or a stopped agent, when
// catch_up says so), one run per slot with a row begun before anything runs,
// and the one definition of a job run (depends first, output to last.log
// within log_max, the result protocol, the whole tree killed at the timeout)
// that a slot, a person's `svc-ctl run` and `svc-ctl exec` all use.
//
// What this package must never do: run a second instance of a job while the
// first has not been reaped, start a run while the agent drains, leave a
// run's row running when the run ended (or panicked), start a goroutine
// outside the agent's L2 net (Host.GoSafe, Host.GoOnce; goCommand is the
// command line's own), or run a shell.
package jobs
