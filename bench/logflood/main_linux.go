// Command logflood measures how tightly log_max holds a service that floods
// its log as fast as it can (docs/benchmarks.md, "Log floods"): it runs the
// agent in this process (agent.Run, what `svc-ctl agent` runs) over one
// service, `yes` printing 100-byte lines, and samples the service's log
// files every -sample for -seconds. It prints the flood's write rate (the
// bytes `yes` wrote, from /proc/PID/io), the peak apparent size of
// runtime.log and of runtime.log + runtime.log.1 + runtime.prev.log, the
// peak blocks allocated to them, the cuts seen, and the CPU this process
// (the agent and the sampler) used meanwhile.
//
//	go run ./bench/logflood -log-max 1MiB -seconds 10
//	go run ./bench/logflood -log-max 50MiB -seconds 10
//
// Where it runs (a state dir in -dir, default the system temp dir) matters:
// a cut is a copy and an fsync, and a slow disk lets the flood write more
// meanwhile.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"svcctl/agent"
	"svcctl/bench/internal/benchkit"
	"svcctl/config"
	"svcctl/snapshot"
)

func main() {
	logMax := flag.String("log-max", "1MiB", "the service's log_max")
	seconds := flag.Float64("seconds", 10, "how long to flood")
	sample := flag.Duration("sample", time.Millisecond, "how often to sample the log files")
	check := flag.Duration("check", 500*time.Millisecond, "the agent's LogCheckEvery")
	dir := flag.String("dir", "", "where to put the state dir (default: a new temp dir)")
	flag.Parse()
	if err := run(*logMax, time.Duration(*seconds*float64(time.Second)), *sample, *check, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "logflood:", err)
		os.Exit(1)
	}
}

func run(logMax string, window, sample, check time.Duration, dir string) error {
	yes, err := exec.LookPath("yes")
	if err != nil {
		return err
	}
	test, err := exec.LookPath("test")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, "logflood-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	state := filepath.Join(tmp, "state")
	log := filepath.Join(state, "services", "flood", "runtime.log")
	line := strings.Repeat("flood line ", 9)[:99] // + "\n" = 100 bytes
	// The health check passes once the log has something in it: `yes` is
	// healthy once it writes. The interval is an hour: the only cycle is the
	// first, which starts it.
	toml := fmt.Sprintf(`[agent]
state_dir = %q
heartbeat = "5s"

[[service]]
name = "flood"
command = [%q, %q]
interval = "1h"
start_timeout = "5s"
stop_timeout = "2s"
log_max = %q
[service.health]
exec = [%q, "-s", %q]
`, state, yes, line, logMax, test, log)
	path := filepath.Join(tmp, "svc-ctl.toml")
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		return err
	}
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	limit := cfg.Services[0].LogMax

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Options{Config: cfg, Version: "bench", Mode: "foreground", MaxStagger: -1, LogCheckEvery: check})
	}()
	pid, err := waitPid(filepath.Join(state, "services", "flood", "pid"), 30*time.Second)
	if err != nil {
		return err
	}
	defer syscall.Kill(pid, syscall.SIGKILL)

	w0, err := wchar(pid)
	if err != nil {
		return err
	}
	c0, err := benchkit.SelfCPU()
	if err != nil {
		return err
	}
	var peakLog, peakAll, peakAlloc, last int64
	cuts := 0
	start := time.Now()
	t := time.NewTicker(sample)
	for time.Since(start) < window {
		<-t.C
		sz, alloc := files(log)
		peakLog = max(peakLog, sz[0])
		peakAll = max(peakAll, sz[0]+sz[1]+sz[2])
		peakAlloc = max(peakAlloc, alloc)
		if sz[0] < last {
			cuts++
		}
		last = sz[0]
	}
	t.Stop()
	elapsed := time.Since(start)
	c1, _ := benchkit.SelfCPU()
	w1, err := wchar(pid)
	if err != nil {
		return err
	}
	syscall.Kill(pid, syscall.SIGKILL)
	stop()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	rate := float64(w1-w0) / elapsed.Seconds()
	fmt.Printf("log_max %s (%d B), LogCheckEvery %s, flood %s by `yes` at %.0f MB/s (%.1f GB written), sampled every %s\n",
		logMax, limit, check, elapsed.Round(time.Millisecond), rate/1e6, float64(w1-w0)/1e9, sample)
	fmt.Printf("  peak runtime.log %.1f MiB (%.1f x log_max); peak of the three files %.1f MiB (%.1f x log_max); peak allocated %.1f MiB\n",
		mib(peakLog), float64(peakLog)/float64(limit), mib(peakAll), float64(peakAll)/float64(limit), mib(peakAlloc))
	fmt.Printf("  cuts seen %d (%.0f/s); CPU of this process (agent + sampler) %.0f%% of a core\n",
		cuts, float64(cuts)/elapsed.Seconds(), 100*(c1-c0).Seconds()/elapsed.Seconds())
	return nil
}

// files returns the apparent sizes of runtime.log, runtime.log.1 and
// runtime.prev.log, and the bytes allocated to the three.
func files(log string) (sz [3]int64, alloc int64) {
	for i, p := range []string{log, snapshot.RotatedPath(log), snapshot.PrevPath(log)} {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil {
			sz[i] = st.Size
			alloc += st.Blocks * 512
		}
	}
	return sz, alloc
}

func waitPid(path string, d time.Duration) (int, error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			var rec struct {
				PID int `json:"pid"`
			}
			if json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
				return rec.PID, nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, fmt.Errorf("no pid file at %s within %s: the service did not start", path, d)
}

// wchar is the bytes pid has written (/proc/PID/io).
func wchar(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "wchar: "); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("no wchar in /proc/PID/io")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
