package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"svcctl/agent"
	"svcctl/bench/internal/benchkit"
	"svcctl/config"
)

// inProcess runs the agent in this process (agent.Run, the code the `svc-ctl
// agent` process runs) with su, waits until its services are healthy, then
// profiles it for window: a CPU profile to cpuPath and, at the end, after a
// GC, a heap profile to heapPath (either may be ""). It prints the window's
// CPU (getrusage) and the Go runtime's view of memory: where the anonymous
// part of the agent's RSS goes and where its idle CPU goes.
func inProcess(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, su setup, window time.Duration, cpuPath, heapPath string) error {
	addrs, err := benchkit.FreeAddrs(su.services)
	if err != nil {
		return err
	}
	svcs := make([]benchkit.Service, su.services)
	for i := range svcs {
		svcs[i] = benchkit.Service{Name: fmt.Sprintf("web%02d", i), Addr: addrs[i], Interval: su.interval, Timeout: "2s", Confirm: "1s"}
	}
	s, err := k.WriteConfig("agent-inproc", bins.TestSvc, nil, svcs, nil)
	if err != nil {
		return err
	}
	defer benchkit.KillRecorded(s.State)
	cfg, err := config.Load(s.Config)
	if err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(runCtx, agent.Options{Config: cfg, Version: "bench", Mode: "foreground", MaxStagger: 100 * time.Millisecond, Lean: true})
	}()
	if err := benchkit.WaitAllHealthy(ctx, addrs, 60*time.Second); err != nil {
		return err
	}
	if err := allStarted(ctx, s, svcs); err != nil {
		return err
	}
	if err := profileWindow(ctx, window, cpuPath); err != nil {
		return err
	}
	if err := heapReport(su, window, heapPath); err != nil {
		return err
	}
	stop()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("in-process agent: %w", err)
		}
	case <-time.After(60 * time.Second):
		return errors.New("in-process agent did not stop within 60s")
	}
	return nil
}

// profileWindow waits out the window under a CPU profile (when cpuPath is
// set) and prints the CPU this process used meanwhile.
func profileWindow(ctx context.Context, window time.Duration, cpuPath string) error {
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	c0, err := benchkit.SelfCPU()
	if err != nil {
		return err
	}
	if err := sleepCtx(ctx, window); err != nil {
		return err
	}
	c1, _ := benchkit.SelfCPU()
	fmt.Printf("  in-process agent: CPU over %s %.0f ms (getrusage; includes this program's own idle costs)\n", window, benchkit.Ms(c1-c0))
	return nil
}

func heapReport(su setup, window time.Duration, heapPath string) error {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("  in-process agent, %d service(s) at %s, after %s and a GC: HeapInuse %.1f MiB, HeapIdle not yet released %.1f MiB, StackInuse %.1f MiB, runtime metadata %.1f MiB, goroutines %d\n",
		su.services, su.interval, window, mib(int64(ms.HeapInuse)), mib(int64(ms.HeapIdle-ms.HeapReleased)), mib(int64(ms.StackInuse)),
		mib(int64(ms.MSpanSys+ms.MCacheSys+ms.BuckHashSys+ms.GCSys+ms.OtherSys)), runtime.NumGoroutine())
	if heapPath == "" {
		return nil
	}
	f, err := os.Create(heapPath)
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	return nil
}
