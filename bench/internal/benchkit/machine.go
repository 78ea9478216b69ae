package benchkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes the host for the record: CPUs, CPU model, Go version,
// the load average (the host these figures come from is shared and noisy)
// and the commit of the code measured.
func Machine() string {
	return fmt.Sprintf("host: %s, load average %s\ncode: %s", Host(), LoadAvg(), Commit())
}

// Host names the OS, architecture, CPUs, CPU model and Go version.
func Host() string {
	return fmt.Sprintf("%s/%s, nproc %d, CPU %s, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), runtime.Version())
}

// Commit names the checked-out commit and whether the tree has changes.
func Commit() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	head, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown (not a git checkout)"
	}
	s := "commit " + strings.TrimSpace(string(head))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		s += " plus uncommitted changes"
	}
	return s
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// LoadAvg is /proc/loadavg's first three fields, or "n/a".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

// PrintLoad prints the load average now (call at the end of a run).
func PrintLoad() { fmt.Printf("load average at the end: %s\n", LoadAvg()) }

// Load1 is the 1-minute load average, or -1 where /proc/loadavg is missing.
func Load1() float64 {
	f := strings.Fields(LoadAvg())
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}
