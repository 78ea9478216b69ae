package child

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Subreaper makes this process a child subreaper: an orphan of any process
// it started, however deep, is re-parented to it instead of init, so its
// exit reaches this process (SIGCHLD) and Reap must run to reap it.
func Subreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
}

// IsSubreaper reports whether this process is a child subreaper.
func IsSubreaper() bool {
	var v int32
	// PR_GET_CHILD_SUBREAPER stores an int at the address in arg2.
	_, _, e := unix.Syscall6(unix.SYS_PRCTL, unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0, 0)
	return e == 0 && v != 0
}

func notifyChild() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	return ch, func() { signal.Stop(ch) }
}

// Sweep reaps every zombie child of this process that no Cmd started and
// that is not in this process's own session and process group, and returns
// them. It holds the registry's lock while it looks and reaps, so a Cmd
// cannot be started (and exit) unregistered meanwhile.
func Sweep() []Orphan {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	self := os.Getpid()
	sid, _ := unix.Getsid(0)
	pgid := unix.Getpgrp()
	var out []Orphan
	for _, pid := range children(self) {
		if registered(pid) {
			continue
		}
		st, ok := readStat(pid)
		if !ok || !st.zombie || st.ppid != self {
			continue
		}
		if st.session == sid && st.pgrp == pgid {
			// Started by this process without a session or group of its own
			// (not by this package: a library's, a test's): not an orphan,
			// and whoever started it waits for it.
			continue
		}
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if err != nil || got != pid {
			continue
		}
		out = append(out, Orphan{PID: int32(pid), Exit: describe(ws)})
	}
	return out
}

// children lists this process's children: /proc/self/task/*/children (a
// child belongs to the thread that forked it, or that it was re-parented
// to), else every process whose parent it is.
func children(self int) []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err == nil {
		var out []int
		found := true
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			if err != nil {
				if errors.Is(err, os.ErrNotExist) && t.Name() == strconv.Itoa(self) {
					found = false // CONFIG_PROC_CHILDREN is off
					break
				}
				continue // the thread ended
			}
			for _, f := range bytes.Fields(b) {
				if n, err := strconv.Atoi(string(f)); err == nil {
					out = append(out, n)
				}
			}
		}
		if found {
			return out
		}
	}
	return scanChildren(self)
}

// scanChildren lists every process whose parent is self.
func scanChildren(self int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.ppid == self {
			out = append(out, pid)
		}
	}
	return out
}

type stat struct {
	ppid, pgrp, session int
	zombie              bool
}

// readStat reads state, ppid, pgrp and session from /proc/PID/stat (the
// fields after the last ')', since comm may hold anything).
func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return stat{}, false
	}
	ppid, e1 := strconv.Atoi(string(f[1]))
	pgrp, e2 := strconv.Atoi(string(f[2]))
	sid, e3 := strconv.Atoi(string(f[3]))
	if e1 != nil || e2 != nil || e3 != nil {
		return stat{}, false
	}
	return stat{ppid: ppid, pgrp: pgrp, session: sid, zombie: f[0][0] == 'Z'}, true
}

func describe(ws unix.WaitStatus) string {
	switch {
	case ws.Signaled():
		if n := unix.SignalName(ws.Signal()); n != "" {
			return "killed by " + n
		}
		return fmt.Sprintf("killed by signal %d", int(ws.Signal()))
	case ws.Exited():
		return fmt.Sprintf("exited with code %d", ws.ExitStatus())
	}
	return "ended"
}
