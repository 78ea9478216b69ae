package benchkit

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime/stime in /proc/PID/stat: USER_HZ, which the
// kernel fixes at 100 for user space on every Linux architecture Go supports.
const userHZ = 100

// Mem is a process's resident memory, from /proc/PID/status, in bytes.
type Mem struct {
	RSS, Anon, File, Shmem, HWM int64
}

// MemOf reads VmRSS, RssAnon, RssFile, RssShmem and VmHWM of pid.
func MemOf(pid int) (Mem, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Mem{}, fmt.Errorf("read memory of pid %d: %w", pid, err)
	}
	var m Mem
	fields := map[string]*int64{"VmRSS": &m.RSS, "RssAnon": &m.Anon, "RssFile": &m.File, "RssShmem": &m.Shmem, "VmHWM": &m.HWM}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if p, want := fields[k]; ok && want {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return Mem{}, fmt.Errorf("pid %d status %s %q: %w", pid, k, v, err)
			}
			*p = kb << 10
		}
	}
	if m.RSS == 0 {
		return Mem{}, fmt.Errorf("pid %d: no VmRSS in /proc/%d/status (a zombie?)", pid, pid)
	}
	return m, nil
}

// CPUOf is utime+stime of pid from /proc/PID/stat (all its threads), in
// steps of 1/USER_HZ = 10 ms.
func CPUOf(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read cpu time of pid %d: %w", pid, err)
	}
	// The command name (field 2) may hold spaces: fields count from its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("pid %d: unexpected /proc/%d/stat", pid, pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// After ')': state is field 3, so utime (14) and stime (15) are f[11], f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("pid %d: short /proc/%d/stat", pid, pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pid %d: utime/stime %q %q not numbers", pid, f[11], f[12])
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// Mapping is the resident size of one mapping of a process (/proc/PID/smaps).
type Mapping struct {
	Name, Perms string
	RSS         int64
}

// MappingsOf lists pid's mappings with their resident size; anonymous ones
// are named "[anon]".
func MappingsOf(pid int) ([]Mapping, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil, fmt.Errorf("read mappings of pid %d: %w", pid, err)
	}
	var out []Mapping
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			m := Mapping{Name: "[anon]", Perms: f[1]}
			if len(f) >= 6 {
				m.Name = f[5]
			}
			out = append(out, m)
		case len(f) == 3 && f[0] == "Rss:" && len(out) > 0:
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			out[len(out)-1].RSS = kb << 10
		}
	}
	return out, nil
}

// PSSOf is pid's proportional set size (/proc/PID/smaps_rollup Pss: each
// shared page divided among the processes that map it), in bytes.
func PSSOf(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, fmt.Errorf("read smaps_rollup of pid %d: %w", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Pss:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("pid %d smaps_rollup Pss %q: %w", pid, v, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("pid %d: no Pss line in /proc/%d/smaps_rollup", pid, pid)
}

// SchedCPUOf is the time pid's threads have run on a CPU, in ns: the sum
// of the first field of /proc/PID/task/*/schedstat over every thread alive
// now. Unlike /proc/PID/stat's 10 ms ticks it is exact; a thread that
// exited takes its time with it (a Go program rarely ends a thread), so
// CPUOf is printed beside it as a check.
func SchedCPUOf(pid int) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("list threads of pid %d: %w", pid, err)
	}
	var sum int64
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended between the listing and the read
		}
		f := strings.Fields(string(b))
		if len(f) < 1 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("pid %d thread %s schedstat %q: %w", pid, e.Name(), b, err)
		}
		sum += ns
	}
	return time.Duration(sum), nil
}
