// Package watchdog is L3: the cycle that judges a service by its health check
// and, only when it is confirmed unhealthy, restarts it with the evidence
// kept. The agent runs it on a timer and on exits; `svc-ctl start`, `stop`,
// `pause`, `resume` and the backstop run it or its holds from the command
// line. The per-service file lock makes them one.
//
// Ensure is the cycle of docs/architecture.md ("The L3 cycle"): lock, pause,
// backoff, given-up, probe, confirm, then — only when a service is confirmed
// unhealthy — snapshot, rotate the log, stop the proven old instance, spawn,
// and wait for health. Every cycle is one run_trace row and one entry in
// watchdog.last.json.
//
// What this package must never do: judge liveness by a PID, signal a process
// whose identity (pid + create time + exe) is not proven ours, spawn before the
// evidence of the last failure is on disk, spawn twice for one service (the
// per-service file lock is shared with every svc-ctl process), or run a shell.
package watchdog
