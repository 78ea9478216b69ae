// Command cycle measures the cost of one L3 cycle on a healthy service:
//
//   - in-process: watchdog.Supervisor.Ensure in a loop (as the agent runs it,
//     recording to a real run_trace file), wall and CPU per cycle, CPU from
//     getrusage(RUSAGE_SELF); also without the ledger, to show its share;
//
//   - a whole `svc-ctl start NAME` process: wall, and the child's user+sys
//     CPU from its rusage; with `svc-ctl version` as the floor every svc-ctl
//     process pays, and the in-process cost of what `start` does besides the
//     cycle (config load, ledger open and close);
//
//   - the two files every cycle rewrites (state.json, watchdog.last.json),
//     written durably (fsync) and not, to show what the fsyncs cost.
//
// Usage:
//
//	go run ./bench/cycle [-trials 5] [-cycles 200] [-cpuprofile FILE]
//
// Aim: a healthy cycle under 5 ms of CPU.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

func main() {
	c := benchkit.CommonFlags()
	cycles := flag.Int("cycles", 200, "in-process cycles per trial")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the in-process cycles (with the ledger) to this file")
	benchkit.Main("bench/cycle", c, func(ctx context.Context, k *benchkit.Kit) error {
		if *cycles < 1 {
			return fmt.Errorf("-cycles must be at least 1")
		}
		return run(ctx, k, *cycles)
	})
}

var cpuProfile string

func run(ctx context.Context, k *benchkit.Kit, cycles int) error {
	fmt.Println(benchkit.Machine())
	bins, err := k.Build(ctx)
	if err != nil {
		return err
	}
	addrs, err := benchkit.FreeAddrs(1)
	if err != nil {
		return err
	}
	svc := benchkit.Service{Name: "web", Addr: addrs[0], Interval: "10m", Timeout: "2s", Confirm: "1s"}
	s, err := k.WriteConfig("cycle", bins.TestSvc, nil, []benchkit.Service{svc}, nil)
	if err != nil {
		return err
	}
	cfg, err := config.Load(s.Config)
	if err != nil {
		return err
	}
	st, err := runtrace.Open(state.Paths{State: s.State}.DB(), runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	defer st.Close()
	withLedger := watchdog.NewSupervisor(cfg, st, nil)
	if r, _ := withLedger.Ensure(ctx, svc.Name, watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true}); r.Reason != runtrace.ReasonStarted {
		return fmt.Errorf("first start of %s: %s/%s: %s", svc.Name, r.Outcome, r.Reason, r.Message)
	}
	fmt.Printf("in-process, %d cycles a trial:\n", cycles)
	stopProfile, err := startProfile()
	if err != nil {
		return err
	}
	err = inProcess(ctx, k, withLedger, svc.Name, cycles, "as the agent runs it (run_trace recorded)", "< 5 ms CPU")
	stopProfile()
	if err != nil {
		return err
	}
	if err := inProcess(ctx, k, watchdog.NewSupervisor(cfg, nullRecorder{}, nil), svc.Name, cycles, "without the ledger (no run_trace row)", ""); err != nil {
		return err
	}
	fmt.Println("whole processes:")
	if err := processes(ctx, k, bins.SvcCtl, bins.TestSvc, s, svc.Name); err != nil {
		return err
	}
	fmt.Println("in-process, the two files every cycle rewrites, per write:")
	if err := fileWrites(ctx, k, s, svc.Name); err != nil {
		return err
	}
	fmt.Println("in-process, what `start` does besides the cycle:")
	if err := around(ctx, k, s); err != nil {
		return err
	}
	benchkit.PrintLoad()
	return nil
}

var quiet = slog.New(slog.DiscardHandler)

// nullRecorder accepts every row and writes nothing: the cycle minus the ledger.
type nullRecorder struct{}

func (nullRecorder) Begin(context.Context, string, runtrace.Trigger, time.Time, time.Time) (int64, error) {
	return 1, nil
}

func (nullRecorder) Finish(context.Context, int64, runtrace.Outcome, runtrace.Reason, any, time.Time) error {
	return nil
}

func (nullRecorder) Record(context.Context, runtrace.Run) (int64, error) { return 1, nil }

func (nullRecorder) RecordLazy(context.Context, runtrace.Run) (int64, error) { return 1, nil }

// inProcess runs `cycles` scheduled cycles per trial and prints wall and CPU
// per cycle (the mean of the trial; median and range over trials).
func inProcess(ctx context.Context, k *benchkit.Kit, sup *watchdog.Supervisor, name string, cycles int, what, aim string) error {
	req := watchdog.Request{Trigger: runtrace.TriggerSchedule}
	for range 10 { // warm up: caches, connections, the file system
		sup.Ensure(ctx, name, req)
	}
	var walls, cpus []float64
	for range k.Common.Trials {
		cpu0, err := benchkit.SelfCPU()
		if err != nil {
			return err
		}
		t0 := time.Now()
		for range cycles {
			if r, _ := sup.Ensure(ctx, name, req); r.Reason != runtrace.ReasonAlreadyRunning || r.RecordError != "" {
				return fmt.Errorf("healthy cycle of %s: %s/%s: %s %s", name, r.Outcome, r.Reason, r.Message, r.RecordError)
			}
		}
		wall := time.Since(t0)
		cpu1, err := benchkit.SelfCPU()
		if err != nil {
			return err
		}
		walls = append(walls, benchkit.Ms(wall)/float64(cycles))
		cpus = append(cpus, benchkit.Ms(cpu1-cpu0)/float64(cycles))
	}
	benchkit.Figure("  cycle "+what+", wall", benchkit.Summarize(walls), "ms", 2, "")
	benchkit.Figure("  cycle "+what+", CPU", benchkit.Summarize(cpus), "ms", 2, aim)
	return nil
}

// processes times `svc-ctl start NAME` on the healthy service, `svc-ctl
// version` and a small Go program, each a fresh process.
func processes(ctx context.Context, k *benchkit.Kit, svcctl, testsvc string, s benchkit.Setup, name string) error {
	runs := []struct {
		what string
		argv []string
	}{
		{fmt.Sprintf("`svc-ctl start %s` (healthy)", name), []string{svcctl, "--config", s.Config, "start", name}},
		{"`svc-ctl version` (floor of any svc-ctl process)", []string{svcctl, "version"}},
		{"`testsvc --exit-now 0` (floor of a small Go program)", []string{testsvc, "--exit-now", "0"}},
	}
	for _, p := range runs {
		var walls, cpus []float64
		for range k.Common.Trials {
			r, err := benchkit.RunCLI(ctx, 30*time.Second, p.argv[0], p.argv[1:]...)
			if err != nil {
				return err
			}
			if r.Code != 0 {
				return fmt.Errorf("%v: exit %d: %s%s", p.argv, r.Code, r.Stdout, r.Stderr)
			}
			walls = append(walls, benchkit.Ms(r.Wall))
			cpus = append(cpus, benchkit.Ms(r.CPU()))
		}
		benchkit.Figure("  "+p.what+", wall", benchkit.Summarize(walls), "ms", 1, "")
		benchkit.Figure("  "+p.what+", user+sys CPU", benchkit.Summarize(cpus), "ms", 1, "")
	}
	return nil
}

// around times, in this process, the steps `svc-ctl start` takes besides the
// cycle: load the config, open the ledger (checks, schema verify), close it.
func around(ctx context.Context, k *benchkit.Kit, s benchkit.Setup) error {
	steps := []struct {
		what string
		fn   func() error
	}{
		{"config.Load", func() error { _, err := config.Load(s.Config); return err }},
		{"runtrace.Open + Close (the CLI's ledger)", func() error {
			st, err := runtrace.Open(state.Paths{State: s.State}.DB(), runtrace.Options{Logger: quiet})
			if err != nil {
				return err
			}
			return st.Close()
		}},
	}
	const reps = 20
	for _, step := range steps {
		var walls, cpus []float64
		for range k.Common.Trials {
			cpu0, _ := benchkit.SelfCPU()
			t0 := time.Now()
			for range reps {
				if err := step.fn(); err != nil {
					return fmt.Errorf("%s: %w", step.what, err)
				}
			}
			wall := time.Since(t0)
			cpu1, err := benchkit.SelfCPU()
			if err != nil {
				return err
			}
			walls = append(walls, benchkit.Ms(wall)/reps)
			cpus = append(cpus, benchkit.Ms(cpu1-cpu0)/reps)
		}
		benchkit.Figure("  "+step.what+", wall", benchkit.Summarize(walls), "ms", 2, "")
		benchkit.Figure("  "+step.what+", CPU", benchkit.Summarize(cpus), "ms", 2, "")
	}
	return nil
}

// startProfile starts the -cpuprofile, if any; the returned func stops it.
func startProfile() (func(), error) {
	if cpuProfile == "" {
		return func() {}, nil
	}
	f, err := os.Create(cpuProfile)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
