package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"svcctl/bench/internal/benchkit"
)

// idleFigures is one idle trial of one peer.
type idleFigures struct {
	rssMiB, anonMiB, cpuMsPer60s float64
}

// startHealthy starts p on a fresh loopback port and waits until its
// service answers.
func startHealthy(ctx context.Context, e *env, p peer) (*instance, error) {
	addrs, err := benchkit.FreeAddrs(1)
	if err != nil {
		return nil, err
	}
	in, err := p.start(ctx, e, addrs[0])
	if err != nil {
		return nil, err
	}
	if err := benchkit.WaitAllHealthy(ctx, addrs, 60*time.Second); err != nil {
		in.stop()
		return nil, fmt.Errorf("the service never answered: %w", err)
	}
	e.svcs.see(in.addr)
	return in, nil
}

// idleTrial: a fresh supervisor, -settle after its service answers, then
// its CPU over -idle and its resident memory at the end.
func idleTrial(ctx context.Context, e *env, p peer, o options) (idleFigures, error) {
	in, err := startHealthy(ctx, e, p)
	if err != nil {
		return idleFigures{}, err
	}
	defer in.stop()
	if err := sleepCtx(ctx, o.settle); err != nil {
		return idleFigures{}, err
	}
	c0, err := cpuOf(in.pids)
	if err != nil {
		return idleFigures{}, err
	}
	t0 := time.Now()
	if err := sleepCtx(ctx, o.idle); err != nil {
		return idleFigures{}, err
	}
	c1, err := cpuOf(in.pids)
	window := time.Since(t0)
	if err != nil {
		return idleFigures{}, err
	}
	var f idleFigures
	for _, pid := range in.pids {
		m, err := benchkit.MemOf(pid)
		if err != nil {
			return f, err
		}
		f.rssMiB += mib(m.RSS)
		f.anonMiB += mib(m.Anon)
	}
	f.cpuMsPer60s = benchkit.Ms(c1-c0) * float64(time.Minute) / float64(window)
	if !benchkit.Healthy(ctx, in.addr, 2*time.Second) {
		return f, fmt.Errorf("the service stopped answering during the idle window")
	}
	return f, in.stop()
}

func cpuOf(pids []int) (time.Duration, error) {
	var sum time.Duration
	for _, pid := range pids {
		c, err := benchkit.CPUOf(pid)
		if err != nil {
			return 0, err
		}
		sum += c
	}
	return sum, nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// killTrials: one supervisor; each trial SIGKILLs the instance and times
// until /health answers 200 from a new one.
func killTrials(ctx context.Context, e *env, p peer) ([]float64, error) {
	in, err := startHealthy(ctx, e, p)
	if err != nil {
		return nil, err
	}
	defer in.stop()
	var xs []float64
	last, n := time.Now(), e.k.Common.Trials
	for i := range n {
		if err := sleepCtx(ctx, time.Until(trialAt(last, p, i, n))); err != nil {
			return nil, err
		}
		old, err := current(ctx, e, in.addr)
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		if ok, err := benchkit.SignalKill(old); err != nil || !ok {
			return nil, fmt.Errorf("SIGKILL pid %d: signalled %v: %w", old.PID, ok, err)
		}
		pid, at, err := benchkit.WaitNewInstance(ctx, in.addr, int(old.PID), 30*time.Second)
		if err != nil {
			return nil, err
		}
		e.svcs.add(pid)
		xs = append(xs, benchkit.Ms(at.Sub(t0)))
		last = at
	}
	return xs, in.stop()
}

// trialAt is when trial i of n breaks the service: once the supervisor is
// armed again after the last recovery (at last), plus (i+0.5)/n of the 1 s
// cycle. A recovery happens just after a cycle, so this spreads the
// failures evenly over the cycle's phases; with few trials, random moments
// could cluster.
func trialAt(last time.Time, p peer, i, n int) time.Time {
	return last.Add(p.armed() + time.Duration((float64(i)+0.5)/float64(n)*float64(time.Second)))
}

// hangFigures are the hang trials of one peer: how long each replaced
// instance took, and how many were not replaced within the window.
type hangFigures struct {
	replaced []float64 // ms
	missed   int
}

func (h hangFigures) trials() int { return len(h.replaced) + h.missed }

// text is the figure as a table cell.
func (h hangFigures) text(window time.Duration) string {
	switch {
	case h.trials() == 0:
		return "—"
	case len(h.replaced) == 0:
		return fmt.Sprintf("**never**: not replaced within %s (%d of %d trials)", window, h.missed, h.trials())
	case h.missed == 0:
		return summary(h.replaced, 0)
	}
	return fmt.Sprintf("%s; not replaced within %s in %d of %d trials", summary(h.replaced, 0), window, h.missed, h.trials())
}

// hangTrials: one supervisor; each trial makes /health hang and times until
// a new instance answers. A hang not replaced within the window is ended by
// the bench (SIGKILL of the hung instance) so the next trial starts healthy.
func hangTrials(ctx context.Context, e *env, p peer, o options) (hangFigures, error) {
	var h hangFigures
	in, err := startHealthy(ctx, e, p)
	if err != nil {
		return h, err
	}
	defer in.stop()
	last, n := time.Now(), e.k.Common.Trials
	for i := range n {
		if err := sleepCtx(ctx, time.Until(trialAt(last, p, i, n))); err != nil {
			return h, err
		}
		old, err := current(ctx, e, in.addr)
		if err != nil {
			return h, err
		}
		if err := benchkit.Control(ctx, in.addr, "hang"); err != nil {
			return h, err
		}
		t0 := time.Now()
		pid, healthyAt, err := benchkit.WaitNewInstance(ctx, in.addr, int(old.PID), o.hangWindow)
		switch {
		case err == nil:
			h.replaced = append(h.replaced, benchkit.Ms(healthyAt.Sub(t0)))
		case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
			h.missed++
			if pid, healthyAt, err = restore(ctx, in.addr, old); err != nil {
				return h, err
			}
		default:
			return h, err
		}
		e.svcs.add(pid)
		last = healthyAt
	}
	return h, in.stop()
}

// restore ends a hung instance that its supervisor did not replace, and
// waits for the supervisor to start a new one on its exit.
func restore(ctx context.Context, addr string, old procID) (int, time.Time, error) {
	if err := benchkit.KillIdentity(old, 5*time.Second); err != nil {
		return 0, time.Time{}, fmt.Errorf("end hung instance: %w", err)
	}
	return benchkit.WaitNewInstance(ctx, addr, int(old.PID), 30*time.Second)
}

// current is the instance answering on addr now, recorded for cleanup.
func current(ctx context.Context, e *env, addr string) (procID, error) {
	pid, err := benchkit.PIDOf(ctx, addr)
	if err != nil {
		return procID{}, fmt.Errorf("service on %s: %w", addr, err)
	}
	return e.svcs.add(pid)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// loadStats is the 1-minute load average sampled through the run.
type loadStats struct {
	min, max, mean float64
	n              int
}

// startLoadSampler samples the 1-minute load average every `every` until
// the returned function is called, which returns the statistics.
func startLoadSampler(ctx context.Context, every time.Duration) func() loadStats {
	var mu sync.Mutex
	var st loadStats
	var sum float64
	sample := func() {
		v := benchkit.Load1()
		if v < 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if st.n == 0 || v < st.min {
			st.min = v
		}
		if v > st.max {
			st.max = v
		}
		st.n++
		sum += v
		st.mean = sum / float64(st.n)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			sample()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() loadStats {
		cancel()
		<-done
		sample()
		mu.Lock()
		defer mu.Unlock()
		return st
	}
}
