package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// adoptOrphans makes the bench the child subreaper of everything it starts,
// and reaps the orphans it adopts, as a host's init does at once.
//
// Why: monit starts its service through start-stop-daemon, which detaches
// it, so the service's parent is init. On this VM init (not systemd) reaps
// orphans late, so a SIGKILLed service stayed a zombie, monit kept seeing
// its pid file's process, and waited for an HTTP failure and a stop: 1.9 s
// instead of a cycle. On a workstation systemd reaps at once. As subreaper
// the bench plays that part for every peer alike.
//
// Only zombies in another session than the bench's are reaped: every child
// the bench starts itself (supervisors, CLIs, builds) stays in its session
// and is waited for by os/exec, whereas detached services and daemons
// (start-stop-daemon, PM2's daemon, svc-ctl's services) call setsid.
func adoptOrphans(ctx context.Context) error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become child subreaper: %w", err)
	}
	self := os.Getpid()
	sid, err := unix.Getsid(self)
	if err != nil {
		return fmt.Errorf("getsid: %w", err)
	}
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, syscall.SIGCHLD)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				reapAdopted(self, sid)
			}
		}
	}()
	return nil
}

// reapAdopted reaps every zombie child of self outside session sid.
func reapAdopted(self, sid int) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, session, zombie, ok := statOf(pid)
		if !ok || ppid != self || !zombie || session == sid {
			continue
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	}
}

// statOf reads ppid, session and whether pid is a zombie from /proc/PID/stat.
func statOf(pid int) (ppid, session int, zombie, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false, false
	}
	// After ')': state, ppid, pgrp, session.
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 {
		return 0, 0, false, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	session, err2 := strconv.Atoi(string(f[3]))
	return ppid, session, string(f[0]) == "Z", err1 == nil && err2 == nil
}
