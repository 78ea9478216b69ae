package proc

import (
	"bytes"
	"errors"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// newProcReader reads processes with the boot time read once: readProc
// reads /proc/stat (for the create time, for people) every time, and that
// file is costly to generate; a look reads it once.
func newProcReader() func(int32) (procInfo, error) {
	bt, err := bootTime()
	if err != nil {
		bt = -1
	}
	return func(pid int32) (procInfo, error) { return readProcBoot(pid, bt) }
}

// A Walk at every cycle of every service must cost next to nothing
// (docs/benchmarks.md, "Member tracking"): reading every member's children
// files (one per thread: a Go server has ten) cost 50 ms a minute for a
// server with 5 workers at a 1 s interval. But a process can only have
// become a member since the last Walk by being created since, and the
// kernel hands out PIDs in order: /proc/loadavg names the last one. So a
// Walk reads the processes created since the last Walk of the instance
// (none, most of the time) and keeps those whose parent is a member, and
// walks every member's children only when it cannot tell (its first Walk
// in this process, the PIDs wrapped, or more were created than reading
// them one by one is worth).

// And when no process at all was created since the instance's last Walk,
// no PID was handed out, so none was reused: a known member whose PID still
// exists is that member, and the Walk asks only whether each PID exists
// (kill 0) instead of reading its facts. A member that died and is a
// zombie nobody reaps counts as alive to such a Walk; the looks that act
// (a Scan, before every stop) read its state.

// walkWindow is how many new PIDs a Walk reads one by one at most; past
// it, it reads every member's children instead.
const walkWindow = 512

// lastWalk is, per instance (its leader's identity), the last PID the
// kernel had handed out when it was last walked.
var lastWalk sync.Map // walkKey -> int32

type walkKey struct {
	pid   int32
	start uint64
	boot  string
}

// lastWalkPIDs reads the last PID handed out now, and notes the one of the
// instance's last Walk; the next Walk starts from now.
func (l *looker) lastWalkPIDs() {
	now, ok := lastPID()
	if !ok {
		return
	}
	prev, seen := lastWalk.Swap(walkKey{l.inst.PID, l.inst.Start, l.inst.Boot}, now)
	l.pidNow, l.pidSeen = now, seen
	if seen {
		l.pidPrev = prev.(int32)
	}
	l.quiet = seen && now == l.pidPrev
}

// sinceLastWalk adds the members created since the instance's last Walk
// and reports whether that was enough (else the caller walks every
// member's children).
func (l *looker) sinceLastWalk() bool {
	if l.windowRead {
		return true // a second pass of descendants: the window has nothing more
	}
	if !l.pidSeen || l.pidNow < l.pidPrev || l.pidNow-l.pidPrev > walkWindow {
		return false
	}
	for pid := l.pidPrev + 1; pid <= l.pidNow && len(l.members) < maxMembers; pid++ {
		// Most PIDs a busy host hands out in a second are gone by the next
		// Walk (a build's compilers, a shell's pipes) or are threads of
		// some process (IDs of one space): only a process can be a member,
		// and asking whether pid is one's leader (tgkill 0, ~0.1 µs) is a
		// twentieth of opening its stat (a path lookup in /proc), which
		// was a fifth of an idle agent's CPU on a host building code
		// (docs/benchmarks.md).
		if !processExists(pid) {
			continue
		}
		pi, err := l.readOne(pid)
		if err != nil || pi.zombie {
			continue // gone already, or never a process of this namespace
		}
		// In PID order a child comes after its parent: a member found here
		// is the parent of a later one.
		if parent, ok := l.members[pi.ppid]; ok && startedNoEarlier(pi, parent.id) {
			l.add(pi, "descendants", nil, nil)
		}
	}
	l.windowRead = true
	return true
}

// pidExists reports whether a process (or a zombie) holds pid.
func pidExists(pid int32) bool {
	err := unix.Kill(int(pid), 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// processExists reports whether pid is a process (a thread group's
// leader, or a zombie), not a thread of one nor free.
func processExists(pid int32) bool {
	err := unix.Tgkill(int(pid), int(pid), 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// lastPID is the last PID the kernel handed out in this PID namespace: the
// fifth field of /proc/loadavg ("0.00 0.05 0.33 1/123 45678").
func lastPID() (int32, bool) {
	b, err := readProcFile(procRoot + "/loadavg")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 5 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(f[4]), 10, 32)
	return int32(n), err == nil
}
