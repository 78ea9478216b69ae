// Package proc starts supervised services detached from svc-ctl, owns the
// whole process tree each start grows, proves which process is which, stops
// only what it can prove is ours, and watches for processes to exit.
//
// An instance is the tree, not the PID svc-ctl forked. Real services are
// rarely one process: a pyenv shim works and then execs, `npm start` is
// npm -> sh -> node, a launcher may fork a daemon that calls setsid and exit
// 0, a database server's workers each call setsid. An Instance (the instance
// record) holds the leader (the process Spawn started), what owns its tree,
// and every member seen so far. A process is a member when something proves
// it (Instance, look.go): the leader; the main process a pid_file names,
// adopted (AdoptPidFile); the marker SVCCTL_INSTANCE=<id> that Spawn puts
// in every instance's environment, found in a process's initial environment
// (Linux /proc/PID/environ, macOS KERN_PROCARGS2) when it runs as the
// instance's user; a member's descendants; the sessions and process groups
// members lead (the kernel reuses no PID that is still a session's or a
// group's id); the instance's cgroup (Linux, delegated: clone3
// CLONE_INTO_CGROUP, which no fork or setsid leaves) or job object (Windows,
// which the leader joins before its first instruction); and every member
// seen before, remembered with its identity (Look returns the record to
// keep). A process nothing proves is never signalled.
//
// What escapes without a cgroup: a process that leaves the tree (double
// fork with setsid) and loses the marker (writes its process title over its
// environment, or clears it) before any look sees it, with no pid_file.
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
// Stopping. StopWith looks with every proof, runs the service's stop
// command first when it has one, proves each member's identity right before
// signalling it (Linux pins it with a pidfd first, so the signal cannot
// reach a reused PID), sends the stop signal to every member (and to
// members forked meanwhile), or to the main process only (kill_mode main),
// then SIGCONT, waits up to the timeout, then SIGKILLs whoever is left (and
// the whole instance cgroup at once, cgroup.kill). It reports every member
// and how each ended. On Windows the job object is terminated; a service
// spawned with a console of its own (stop_signal SIGBREAK) first gets
// CTRL_BREAK through a helper attached to that console.
//
// This package must never run a shell (argv only), never signal a process
// whose identity it has not just verified or that nothing proves a member,
// never signal its own process, session or process group, never start a
// process other than through internal/child, never log (it returns errors;
// callers decide what to record) and never put environment values into an
// error. It imports only the standard library, golang.org/x/sys, gopsutil,
// go-sysconf and the internal helpers child, runas, svcenv, fsutil and
// winjob.
package proc
