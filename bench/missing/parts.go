package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/config"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/state"
)

var quiet = slog.New(slog.DiscardHandler)

// step is one in-process measurement; fn returns how many slots it found
// (expected, covered or missing, as its name says).
type step struct {
	what string
	fn   func() (int, error)
}

// parts times, in this process, what the command does with and without the
// slot coverage, and what the counting it saves would cost: per job, the
// expected slots (Schedule.Span) and the distinct covered ones (runtrace
// CountSlots, inside SQLite); it lists and compares slots only for a part
// whose counts differ (the slow path, timed too).
func parts(ctx context.Context, k *benchkit.Kit, cfgPath string) error {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	since := now.AddDate(0, 0, -40)
	ws, err := windows(ctx, st, cfg, since, now)
	if err != nil {
		return err
	}
	missing := func(since time.Time) func() (int, error) {
		return func() (int, error) {
			ms, err := report.Missing(ctx, st, cfg, nil, since, now)
			return len(ms), err
		}
	}
	steps := []step{
		{"report.Missing over 40 days (the command's work) [missing]", missing(since)},
		{"  count expected slots, all jobs (Schedule.Span) [expected]", func() (int, error) {
			n := 0
			for _, w := range ws {
				c, _, _ := w.sched.Span(w.lo, w.hi)
				n += c
			}
			return n, nil
		}},
		{"  count covered slots, all jobs (runtrace CountSlots) [covered]", func() (int, error) {
			n := 0
			for _, w := range ws {
				c, err := st.CountSlots(ctx, w.id, w.first, w.last)
				if err != nil {
					return n, err
				}
				n += c
			}
			return n, nil
		}},
		{"  slow path if every job had a gap: list and compare (Expected, ScheduledSlots, Missing) [expected]", func() (int, error) {
			n := 0
			for _, w := range ws {
				exp := schedule.Expected(w.sched, w.reg, since, now, w.job.Grace)
				c, err := st.ScheduledSlots(ctx, w.id, exp[0], exp[len(exp)-1])
				if err != nil {
					return n, err
				}
				_ = schedule.Missing(exp, c)
				n += len(exp)
			}
			return n, nil
		}},
		{"report.Missing over 40 days, no slot coverage yet (records it) [missing]", func() (int, error) {
			if err := setCoverage(st.Path(), -1); err != nil {
				return 0, err
			}
			return missing(since)()
		}},
	}
	fmt.Println("in-process ([n] = slots found):")
	for _, s := range steps {
		if err := timeStep(k, s); err != nil {
			return err
		}
	}
	return nil
}

func timeStep(k *benchkit.Kit, s step) error {
	var walls, cpus []float64
	var n int
	for range k.Common.Trials {
		cpu0, err := benchkit.SelfCPU()
		if err != nil {
			return err
		}
		t0 := time.Now()
		if n, err = s.fn(); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		wall := time.Since(t0)
		cpu1, _ := benchkit.SelfCPU()
		walls = append(walls, benchkit.Ms(wall))
		cpus = append(cpus, benchkit.Ms(cpu1-cpu0))
	}
	benchkit.Figure(fmt.Sprintf("%s %d, wall", s.what, n), benchkit.Summarize(walls), "ms", 0, "")
	benchkit.Figure("    CPU", benchkit.Summarize(cpus), "ms", 0, "")
	return nil
}

// window is one job's expected slots over the measured window.
type window struct {
	id          string
	job         *config.Job
	sched       *schedule.Schedule
	reg         time.Time
	lo, hi      time.Time
	first, last time.Time
}

// windows resolves every job's window as report.SlotsFor does.
func windows(ctx context.Context, st *runtrace.Store, cfg *config.Config, since, now time.Time) ([]window, error) {
	out := make([]window, 0, len(cfg.Jobs))
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		w := window{id: runtrace.JobID(j.Name), job: j, lo: since, hi: now.Add(-j.Grace)}
		var ok bool
		var err error
		if w.reg, ok, err = st.Registered(ctx, w.id); err != nil || !ok {
			return nil, fmt.Errorf("registration of %s: %v (found %v)", w.id, err, ok)
		}
		if w.sched, err = j.Cron(w.reg); err != nil {
			return nil, err
		}
		if w.reg.After(w.lo) {
			w.lo = w.reg
		}
		var n int
		if n, w.first, w.last = w.sched.Span(w.lo, w.hi); n == 0 {
			return nil, fmt.Errorf("%s: no expected slot since %s", w.id, since)
		}
		out = append(out, w)
	}
	return out, nil
}
