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

// heapProfile runs the agent in this process (agent.Run, the same code the
// `svc-ctl agent` process runs) supervising n services for -idle, then
// writes a heap profile to path and prints the Go runtime's view of its
// memory: where the anonymous part of the agent's RSS goes.
func heapProfile(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options, n int, path string) error {
	addrs, err := benchkit.FreeAddrs(n)
	if err != nil {
		return err
	}
	svcs := make([]benchkit.Service, n)
	for i := range svcs {
		svcs[i] = benchkit.Service{Name: fmt.Sprintf("web%02d", i), Addr: addrs[i], Interval: o.rssInterval.String(), Timeout: "2s", Confirm: "1s"}
	}
	s, err := k.WriteConfig("agent-inproc", bins.TestSvc, nil, svcs, nil)
	if err != nil {
		return err
	}
	cfg, err := config.Load(s.Config)
	if err != nil {
		return err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(runCtx, agent.Options{Config: cfg, Version: "bench", Mode: "foreground", MaxStagger: 100 * time.Millisecond})
	}()
	if err := benchkit.WaitAllHealthy(ctx, addrs, 60*time.Second); err != nil {
		return err
	}
	if err := sleepCtx(ctx, o.idle); err != nil {
		return err
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f, err := os.Create(path)
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
	fmt.Printf("in-process agent, %d service(s), after %s and a GC: HeapInuse %.1f MiB, HeapIdle-HeapReleased %.1f MiB, StackInuse %.1f MiB, runtime metadata (MSpan+MCache+BuckHash+GC+Other) %.1f MiB, goroutines %d; heap profile in %s\n",
		n, o.idle, mib(int64(ms.HeapInuse)), mib(int64(ms.HeapIdle-ms.HeapReleased)), mib(int64(ms.StackInuse)),
		mib(int64(ms.MSpanSys+ms.MCacheSys+ms.BuckHashSys+ms.GCSys+ms.OtherSys)), runtime.NumGoroutine(), path)
	stop()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("in-process agent: %w", err)
		}
	case <-time.After(60 * time.Second):
		return errors.New("in-process agent did not stop within 60s")
	}
	benchkit.KillRecorded(s.State)
	return nil
}
