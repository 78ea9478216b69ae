// Package diskfull holds the end-to-end test of a full disk (docs/runbook.md,
// "The disk is full"): the real svc-ctl
// agent on a state dir that is a small tmpfs, filled up while the agent runs.
// A service killed while the disk is full is restored; `status`, `verify` and
// /metrics say "disk full"; once space is freed every row of the outage is in
// run_trace with its true time and outcome; an agent stopped (SIGTERM) while
// rows wait spills them, and the next agent writes them.
//
// The test runs only as root with SVCCTL_E2E_PRIVILEGED=1 (.ci/run sets it:
// CI runs as root), because it mounts a tmpfs; elsewhere it skips with the
// reason. It unmounts and removes everything it made, whatever happens, and
// only signals processes it started.
package diskfull
