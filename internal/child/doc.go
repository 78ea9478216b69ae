// Package child is the one door through which svc-ctl starts a process:
// services and jobs (through proc), exec health checks, the command
// notification channel, the install checks' systemctl, launchctl, schtasks
// and crontab runs, `svc-ctl exec`, the browser opener. Every process it
// starts is registered, under a lock, from before its fork until it has been
// waited for.
//
// The registry exists for the reaper. On Linux the agent makes itself a
// child subreaper (PR_SET_CHILD_SUBREAPER): a daemon that double-forks out
// of a service's tree is re-parented to the agent instead of init, so the
// agent sees its exit and owns its zombie. Those zombies must be reaped by
// someone, but os/exec waits for its own children by pid (a pidfd on Linux),
// and its Wait fails with ECHILD when anyone else reaps first. So the reaper
// reaps only zombie children of this process that no Cmd of this package
// started (wait4(pid, WNOHANG), never wait4(-1)), and it takes the
// registry's lock while it looks: a child cannot be started and exit between
// the fork and its registration unseen.
//
// A test of the module (spawn_test.go at the root) fails on any exec.Command,
// exec.CommandContext, exec.Cmd literal, os.StartProcess or syscall.ForkExec
// outside this package: nothing else may start a process.
//
// This package must never reap a process it did not prove to be a zombie
// child of this process that no Cmd waits for, never reap one in this
// process's own session and process group (a direct child started without a
// session or group of its own: whoever started it waits for it), never run a
// shell, and never log.
package child
