// Package proc starts supervised services detached from svc-ctl, proves which
// process is which, stops only an instance it can prove is the one svc-ctl
// started, and watches for a process to exit.
//
// Identity. A PID alone proves nothing: PIDs are reused, after a reboot most
// of all. An Identity is PID + create time + executable path, recorded at
// spawn time (and in the service's pid file). Match is true only when all
// three still agree and the process is not a zombie. On Linux the create time
// that gopsutil derives from the boot time can read one second apart between
// two processes (the boot time is whole seconds and, in containers, is
// computed from /proc/uptime), so there Match allows up to one second of
// difference; elsewhere the comparison is exact.
//
// Detaching. On unix a spawned service leads its own session (setsid), so it
// survives the agent and an interactive `svc-ctl start`, has no controlling
// terminal, and its process group id equals its PID, which is what Stop
// signals. On Windows it starts in a new process group, without a console,
// broken away from the agent's job object when the job allows it.
//
// Stopping. Stop checks identity first and signals nothing when it cannot
// prove the process is ours. On unix it sends SIGTERM to the process group,
// polls (re-checking identity) until the timeout, then sends SIGKILL; members
// of the group that outlive the leader are killed at the same deadline. On
// Windows there is no graceful signal for a detached process without a
// console, so Stop terminates the process tree (TerminateProcess) at once.
// A service that daemonizes itself into another session escapes the group and
// is not stopped with it.
//
// This package must never run a shell (argv only), never signal a process
// whose identity it has not just verified, never signal its own process or
// process group, never log (it returns errors; callers decide what to record)
// and never put environment values into an error. It imports only the
// standard library, golang.org/x/sys and gopsutil.
package proc
