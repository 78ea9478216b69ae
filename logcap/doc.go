// Package logcap holds every service's runtime log to its log_max while the
// service runs: it looks at each log when the OS says it was written
// (inotify on Linux) and on a schedule that follows the log's growth, and
// has the watchdog cut it (watchdog.CapLog) past its cap.
//
// What this package must never do: cut a log itself (the watchdog does, in
// the service's pinned directory), look at a log more often than every
// capReactMin, or start a goroutine outside the agent's L2 net (Cap.Go).
package logcap
