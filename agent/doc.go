// Package agent is svc-ctl's long-running supervisor and the L3 cycle that
// both the agent and the command line run.
//
// Ensure is the cycle of DESIGN.md: lock, pause, backoff, given-up, probe,
// confirm, then — only when a service is confirmed unhealthy — snapshot,
// rotate the log, stop the proven old instance, spawn, and wait for health.
// Every cycle is one run_trace row and one entry in watchdog.last.json.
//
// What this package must never do: judge liveness by a PID, signal a process
// whose identity (pid + create time + exe) is not proven ours, spawn before the
// evidence of the last failure is on disk, spawn twice for one service (the
// per-service file lock is shared with every svc-ctl process), or run a shell.
package agent
