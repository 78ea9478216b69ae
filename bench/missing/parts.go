package main

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"svcctl/agent"
	"svcctl/bench/internal/benchkit"
	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/schedule"
)

var quiet = slog.New(slog.DiscardHandler)

// parts times, in this process, what the command does: the whole
// agent.Missing, then its two halves over all jobs — the expected slots
// (schedule.Expected) and the covered ones (runtrace ScheduledSlots, every
// distinct scheduled_at read into Go) — and, for comparison, a count of the
// covered slots done inside SQLite, which is all a complete job needs.
func parts(ctx context.Context, k *benchkit.Kit, cfgPath string) error {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	db := agent.Paths{State: cfg.Agent.StateDir}.DB()
	st, err := runtrace.Open(db, runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	defer st.Close()
	raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		return err
	}
	defer raw.Close()
	now := time.Now()
	since := now.AddDate(0, 0, -40)
	windows, err := expected(ctx, st, cfg, since, now)
	if err != nil {
		return err
	}
	steps := []struct {
		what string
		fn   func() (int, error)
	}{
		{"agent.Missing (the command's work)", func() (int, error) {
			ms, err := agent.Missing(ctx, st, cfg, nil, since, now)
			return len(ms), err
		}},
		{"  expected slots, all jobs (schedule.Expected)", func() (int, error) {
			w, err := expected(ctx, st, cfg, since, now)
			n := 0
			for _, x := range w {
				n += len(x.slots)
			}
			return n, err
		}},
		{"  covered slots, all jobs (ScheduledSlots)", func() (int, error) {
			n := 0
			for _, w := range windows {
				c, err := st.ScheduledSlots(ctx, w.id, w.slots[0], w.slots[len(w.slots)-1])
				n += len(c)
				if err != nil {
					return n, err
				}
			}
			return n, nil
		}},
		{"suggested: count first, over 40 days (both counts below; a short job falls back to SlotsFor)", func() (int, error) {
			return countFirst(ctx, st, raw, cfg, since, now)
		}},
		{"suggested: count first, over the last 24 h (what a per-job watermark leaves to check)", func() (int, error) {
			return countFirst(ctx, st, raw, cfg, now.Add(-24*time.Hour), now)
		}},
		{"  count expected slots with Schedule.Next (no slice)", func() (int, error) {
			return countExpected(ctx, st, cfg, since, now)
		}},
		{"  count covered slots: COUNT(DISTINCT scheduled_at) per job", func() (int, error) {
			n := 0
			for _, w := range windows {
				var c int
				err := raw.QueryRowContext(ctx, `SELECT COUNT(DISTINCT scheduled_at) FROM run_trace
WHERE job_id = ? AND scheduled_at >= ? AND scheduled_at <= ?`, w.id, w.slots[0].UnixMilli(), w.slots[len(w.slots)-1].UnixMilli()).Scan(&c)
				if err != nil {
					return n, err
				}
				n += c
			}
			return n, nil
		}},
	}
	fmt.Println("in-process:")
	for _, s := range steps {
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
		benchkit.Figure(fmt.Sprintf("%s [%d], wall", s.what, n), benchkit.Summarize(walls), "ms", 0, "")
		benchkit.Figure(fmt.Sprintf("%s, CPU", s.what), benchkit.Summarize(cpus), "ms", 0, "")
	}
	return nil
}

// window is one job's expected slots.
type window struct {
	id    string
	slots []time.Time
}

// expected computes every job's expected slots as agent.SlotsFor does.
func expected(ctx context.Context, st *runtrace.Store, cfg *config.Config, since, now time.Time) ([]window, error) {
	out := make([]window, 0, len(cfg.Jobs))
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		id := "job:" + j.Name
		reg, ok, err := st.Registered(ctx, id)
		if err != nil || !ok {
			return nil, fmt.Errorf("registration of %s: %v (found %v)", id, err, ok)
		}
		s, err := agent.JobSchedule(j, reg)
		if err != nil {
			return nil, err
		}
		w := window{id: id, slots: schedule.Expected(s, reg, since, now, j.Grace)}
		if len(w.slots) == 0 {
			return nil, fmt.Errorf("%s: no expected slot since %s", id, since)
		}
		out = append(out, w)
	}
	return out, nil
}

// countExpected counts what Expected returns, walking Schedule.Next without
// building the slice (same bounds: (max(since, registered), now-grace]).
func countExpected(ctx context.Context, st *runtrace.Store, cfg *config.Config, since, now time.Time) (int, error) {
	n := 0
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		reg, _, err := st.Registered(ctx, "job:"+j.Name)
		if err != nil {
			return n, err
		}
		s, err := agent.JobSchedule(j, reg)
		if err != nil {
			return n, err
		}
		lo, hi := since, now.Add(-j.Grace)
		if reg.After(lo) {
			lo = reg
		}
		for t := s.Next(lo); !t.IsZero() && !t.After(hi); t = s.Next(t) {
			n++
		}
	}
	return n, nil
}

// countFirst is the suggested shape of agent.Missing: per job, count the
// expected slots (no slice) and the distinct covered ones (inside SQLite);
// only a job whose counts differ needs the slot-by-slot comparison. Every
// scheduled_at the agent and `exec` write is a slot of the job's current
// schedule, and rows before its registration are outside the window, so
// equal counts mean nothing is missing. It returns the missing slots found.
func countFirst(ctx context.Context, st *runtrace.Store, raw *sql.DB, cfg *config.Config, since, now time.Time) (int, error) {
	missing := 0
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		id := "job:" + j.Name
		reg, ok, err := st.Registered(ctx, id)
		if err != nil || !ok {
			return missing, err
		}
		s, err := agent.JobSchedule(j, reg)
		if err != nil {
			return missing, err
		}
		lo, hi := since, now.Add(-j.Grace)
		if reg.After(lo) {
			lo = reg
		}
		var first, last time.Time
		n := 0
		for t := s.Next(lo); !t.IsZero() && !t.After(hi); t = s.Next(t) {
			if n == 0 {
				first = t
			}
			last = t
			n++
		}
		if n == 0 {
			continue
		}
		var covered int
		if err := raw.QueryRowContext(ctx, `SELECT COUNT(DISTINCT scheduled_at) FROM run_trace
WHERE job_id = ? AND scheduled_at >= ? AND scheduled_at <= ?`, id, first.UnixMilli(), last.UnixMilli()).Scan(&covered); err != nil {
			return missing, err
		}
		if covered == n {
			continue
		}
		js, err := agent.SlotsFor(ctx, st, j, since, now)
		if err != nil {
			return missing, err
		}
		missing += len(js.Missing)
	}
	return missing, nil
}
