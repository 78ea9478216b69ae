package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tklauser/go-sysconf"
	"golang.org/x/sys/unix"
)

// Linux identity comes from /proc/PID/stat: field 22, the start time in
// clock ticks since boot. It is fixed at fork, read from the monotonic boot
// clock, and so immune to wall-clock steps; it only repeats across boots,
// which the boot id (/proc/sys/kernel/random/boot_id) tells apart.
//
// These seams are package variables so tests can inject a boot (a reboot)
// or a boot time (a wall-clock step moves /proc/stat's btime).
var (
	bootID   = readBootID   // the current boot's id
	bootTime = readBootTime // wall-clock seconds of the boot, as /proc/stat says now
)

var procRoot = "/proc"

// readProc reads /proc/PID/stat. Its fields after the last ')' (comm may
// hold spaces and parentheses) are: state ppid pgrp session ... starttime
// (the 20th after the parenthesis).
func readProc(pid int32) (procInfo, error) {
	bt, err := bootTime()
	if err != nil {
		bt = -1
	}
	return readProcBoot(pid, bt)
}

// readProcBoot is readProc with the boot time already read (-1: unknown),
// so a listing of every process reads /proc/stat once, not once a process
// (that doubled the files a tree walk before a restart opens).
func readProcBoot(pid int32, bt int64) (procInfo, error) {
	if pid <= 0 {
		return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	b, err := readProcFile(procRoot + "/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
		}
		return procInfo{}, fmt.Errorf("read stat of pid %d: %w", pid, err)
	}
	pi, ok := parseStat(b)
	if !ok {
		return procInfo{}, fmt.Errorf("read stat of pid %d: unexpected format %q", pid, truncate(b, 80))
	}
	pi.pid = pid
	pi.createMs = createMsAt(bt, pi.start)
	if pi.zombie && threadsLeft(pid) > 1 {
		// The leader thread of a multi-threaded process shows Z as soon as
		// it exits, while the other threads are still tearing down and
		// the process still holds its files (a listening socket). Not
		// gone until the whole thread group is.
		pi.zombie = false
	}
	return pi, nil
}

// threadsLeft reads the Threads line of /proc/PID/status (0 if unreadable).
func threadsLeft(pid int32) int {
	b, err := os.ReadFile(procRoot + "/" + strconv.Itoa(int(pid)) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

func parseStat(b []byte) (procInfo, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, false
	}
	ppid, e1 := strconv.ParseInt(string(f[1]), 10, 32)
	pgrp, e4 := strconv.ParseInt(string(f[2]), 10, 32)
	sid, e2 := strconv.ParseInt(string(f[3]), 10, 32)
	start, e3 := strconv.ParseUint(string(f[19]), 10, 64)
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
		return procInfo{}, false
	}
	st := f[0][0]
	return procInfo{ppid: int32(ppid), pgrp: int32(pgrp), session: int32(sid), zombie: st == 'Z' || st == 'X',
		stopped: st == 'T' || st == 't', start: start}, true
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// listProcs reads every numeric entry of /proc. Processes that end while the
// listing runs are skipped.
func listProcs() ([]procInfo, error) {
	return listWhere(func(int32) bool { return true })
}

// listSession is listProcs narrowed to the process holding pid leader and
// the members of session leader (session id == leader). Which processes are
// in the session is asked of the kernel with getsid(2), one system call per
// process, and only those have their /proc/PID/stat read: on a host of a few
// hundred processes that is 0.2 ms where reading every stat took 5-10 ms,
// which was the largest step between a service's death and its new spawn
// (docs/benchmarks.md). A process whose session getsid cannot tell (a
// security module refusing it) is read as before.
func listSession(leader int32) ([]procInfo, error) {
	return listWhere(func(pid int32) bool {
		if pid == leader {
			return true
		}
		sid, err := unix.Getsid(int(pid))
		switch {
		case err == nil:
			return int32(sid) == leader
		case errors.Is(err, unix.ESRCH):
			return false // ended since the directory was read
		default:
			return true
		}
	})
}

// listWhere reads /proc/PID/stat of every process that want accepts.
func listWhere(want func(pid int32) bool) ([]procInfo, error) {
	d, err := os.Open(procRoot)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	bt, err := bootTime()
	if err != nil {
		bt = -1
	}
	var out []procInfo
	for _, name := range names {
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.ParseInt(name, 10, 32)
		if err != nil || !want(int32(pid)) {
			continue
		}
		if pi, err := readProcBoot(int32(pid), bt); err == nil {
			out = append(out, pi)
		}
	}
	return out, nil
}

// readExe is /proc/PID/exe. The kernel appends " (deleted)" once the file was
// replaced (an upgrade): the process is the same, so the suffix is dropped.
func readExe(pid int32) (string, error) {
	p, err := os.Readlink(procRoot + "/" + strconv.Itoa(int(pid)) + "/exe")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, " (deleted)"), nil
}

// currentBoot is the boot id, or "" when it cannot be read (then identities
// are compared by start ticks alone).
func currentBoot() string {
	id, err := bootID()
	if err != nil {
		return ""
	}
	return id
}

var bootIDOnce = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("read boot id: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
})

// readBootID reads the boot id once: it cannot change while this process runs.
func readBootID() (string, error) { return bootIDOnce() }

// readBootTime is /proc/stat's btime: the wall clock now minus the time since
// boot, so it moves when the wall clock is stepped. Only CreateTime (for
// people) uses it. /proc/stat is a line per CPU and every interrupt
// counter, generated at each read: read for every process a cycle looks at,
// it was a measurable part of an idle agent's CPU. So it is read once, and
// again only when the wall clock moved against the boot clock since (a
// step, or a slew past bootRereadAfter).
func readBootTime() (int64, error) {
	off, err := clockOffset()
	if err != nil {
		return bootTimeFile()
	}
	bootCache.mu.Lock()
	defer bootCache.mu.Unlock()
	if d := off - bootCache.offset; bootCache.ok && d < bootRereadAfter && d > -bootRereadAfter {
		return bootCache.btime, nil
	}
	bt, err := bootTimeFile()
	if err != nil {
		return 0, err
	}
	bootCache.btime, bootCache.offset, bootCache.ok = bt, off, true
	return bt, nil
}

// bootRereadAfter is how far the wall clock may move against the boot
// clock before btime is read again (NTP slews at most 0.5 ms a second).
const bootRereadAfter = 100 * time.Millisecond

var (
	bootCache struct {
		mu     sync.Mutex
		btime  int64
		offset time.Duration // clockOffset when btime was read
		ok     bool
	}
	// Seams: tests count the reads and step the clock.
	bootTimeFile = readBootTimeFile
	clockOffset  = wallMinusBootClock
)

// wallMinusBootClock is the wall clock less CLOCK_BOOTTIME: constant but
// for steps and slews of the wall clock.
func wallMinusBootClock() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0, fmt.Errorf("read the boot clock: %w", err)
	}
	return time.Duration(time.Now().UnixNano() - ts.Nano()), nil
}

// readBootTimeFile reads btime from /proc/stat.
func readBootTimeFile() (int64, error) {
	b, err := os.ReadFile(procRoot + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read boot time: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("read boot time: no btime line in /proc/stat")
}

var clockTicks = sync.OnceValue(func() int64 {
	if n, err := sysconf.Sysconf(sysconf.SC_CLK_TCK); err == nil && n > 0 {
		return n
	}
	return 100 // USER_HZ on every Linux architecture in use
})

// createMsAt turns start ticks into wall-clock ms (for people), given the
// boot time; 0 when it could not be read (-1).
func createMsAt(bt int64, ticks uint64) int64 {
	if bt < 0 {
		return 0
	}
	return bt*1000 + int64(ticks)*1000/clockTicks()
}

// childrenOf lists pid's children from /proc/PID/task/*/children (a child
// is listed under the thread that forked it, or that it was re-parented
// to): a few small reads where listing every process reads hundreds. false
// where the kernel lacks the files (CONFIG_PROC_CHILDREN) or pid is gone.
func childrenOf(pid int32) ([]int32, bool) {
	dir := procRoot + "/" + strconv.Itoa(int(pid)) + "/task"
	d, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	tasks, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, false
	}
	var out []int32
	read := false
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t + "/children")
		if err != nil {
			continue // the thread ended (or no such file: see below)
		}
		read = true
		for _, f := range bytes.Fields(b) {
			if n, err := strconv.ParseInt(string(f), 10, 32); err == nil {
				out = append(out, int32(n))
			}
		}
	}
	return out, read
}

// uidsOf reads the real and effective uid from /proc/PID/status.
func uidsOf(pid int32) (uint32, uint32, bool) {
	b, err := os.ReadFile(procRoot + "/" + strconv.Itoa(int(pid)) + "/status")
	if err != nil {
		return 0, 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Uid:"); ok {
			f := strings.Fields(v)
			if len(f) < 2 {
				return 0, 0, false
			}
			r, e1 := strconv.ParseUint(f[0], 10, 32)
			e, e2 := strconv.ParseUint(f[1], 10, 32)
			return uint32(r), uint32(e), e1 == nil && e2 == nil
		}
	}
	return 0, 0, false
}

// maxEnviron bounds what environOf reads: ARG_MAX is 2 MiB, a service's
// environment a few KiB; a marker past this much is not looked for.
const maxEnviron = 1 << 20

// environOf reads /proc/PID/environ: the environment area as the process's
// memory holds it now (a program that wrote its title over it shows what
// it wrote).
func environOf(pid int32) ([]byte, error) {
	f, err := os.Open(procRoot + "/" + strconv.Itoa(int(pid)) + "/environ")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxEnviron))
}
