package benchkit

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Machine describes the host for the record: CPUs, CPU model, Go version and
// the load average (the host these figures come from is shared and noisy).
func Machine() string {
	return fmt.Sprintf("host: %s/%s, nproc %d, CPU %s, %s, load average %s",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), runtime.Version(), loadAvg())
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
func loadAvg() string {
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
func PrintLoad() { fmt.Printf("load average at the end: %s\n", loadAvg()) }
