// Package proc starts supervised services detached from svc-ctl, owns the
// whole process tree each start grows, proves which process is which, stops
// only what it can prove is ours, and watches for processes to exit.
//
// An instance is the tree, not the PID svc-ctl forked. Real services are
// rarely one process: a pyenv shim works and then execs, `npm start` is
// npm -> sh -> node, a wrapper script may or may not exec, a launcher may
// fork a daemon and exit 0. An Instance records the leader (the process
// Spawn started) and what owns its tree:
//
//   - unix: the session. Spawn makes the leader a session leader (setsid);
//     every process whose session id is the leader's PID, started no earlier
//     than the leader, is a member, whether or not the leader still lives.
//     The kernel does not reuse a PID while it is some session's id.
//   - Linux with a delegated cgroup v2 (the agent under the systemd unit
//     svc-ctl renders, Delegate=yes): also a cgroup per instance, which the
//     leader is born into (clone3 CLONE_INTO_CGROUP) and which no fork,
//     setsid or double fork leaves.
//   - Windows: a named job object per instance (no kill-on-close: services
//     outlive the agent); the leader starts suspended and joins it before
//     its first instruction. Where the job can no longer be opened, the
//     leader's descendants by parent links.
//
// What escapes: without a cgroup, a process that calls setsid (a classic
// daemon) leaves the session; svc-ctl cannot own it and never signals it.
// PortHolder names such a process when it holds a port.
//
// Identity. A PID alone proves nothing: PIDs are reused, after a reboot most
// of all. An Identity is PID + the OS's start stamp (Linux: start ticks since
// boot from /proc/PID/stat, plus the boot id; macOS: p_starttime; Windows:
// the creation FILETIME). None is read off the wall clock, so a clock step
// changes no verdict. The executable is recorded for people only: an exec
// keeps the PID and the start stamp, and is the same instance. Pid files
// written before start stamps were recorded are still read and matched by
// their create time.
//
// Stopping. StopTree lists the tree, proves each member's identity right
// before signalling it (Linux pins it with a pidfd first, so the signal
// cannot reach a reused PID), sends SIGTERM to every member (and to members
// forked meanwhile), waits up to the timeout, then SIGKILLs whoever is left
// (and the whole instance cgroup at once, cgroup.kill). It reports every
// member and how each ended. On Windows there is no graceful signal for a
// detached process without a console: members are terminated at once.
//
// This package must never run a shell (argv only), never signal a process
// whose identity it has not just verified, never signal its own process,
// session or process group, never log (it returns errors; callers decide
// what to record) and never put environment values into an error. It
// imports only the standard library, golang.org/x/sys, gopsutil and
// internal/winjob.
package proc
