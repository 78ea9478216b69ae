package report

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/state"
)

// MissingSlot is an expected slot of a job that has no run_trace row.
type MissingSlot struct {
	Job  string    `json:"job"`
	Slot time.Time `json:"slot"`
	Zone string    `json:"timezone"`
}

// JobSlots is the slot logic of one job over a window: what was expected,
// what is covered, what is missing. `missing`, `why` and `status` share it.
type JobSlots struct {
	Job        *config.Job
	Registered time.Time
	Known      bool // registered in the ledger (an agent or `exec` has seen it)
	Schedule   *schedule.Schedule
	Count      int         // expected slots in the window
	Expected   []time.Time // listed only when some are missing
	Missing    []time.Time
}

// SlotsFor computes a job's expected and missing slots in (since, now].
func SlotsFor(ctx context.Context, store *runtrace.Store, j *config.Job, since, now time.Time) (*JobSlots, error) {
	id := runtrace.JobID(j.Name)
	reg, known, err := store.Registered(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read registration of %s: %w", id, err)
	}
	js := &JobSlots{Job: j, Registered: reg, Known: known}
	if !known {
		return js, nil // never registered: nothing was expected yet
	}
	s, err := j.Cron(reg)
	if err != nil {
		return nil, err
	}
	js.Schedule = s
	// Fast path: count the expected slots and the covered ones; only when
	// some slot has no row are both listed and compared. Expected is then
	// filled; on the fast path it stays nil and Count says how many. Every
	// scheduled_at svc-ctl writes is a slot of the job's current schedule
	// (runs, catch-ups, `exec --scheduled`), and a schedule change is a new
	// registration, so equal counts mean equal sets.
	lo := since
	if reg.After(lo) {
		lo = reg
	}
	n, first, last := s.Span(lo, now.Add(-j.Grace))
	js.Count = n
	if n == 0 {
		return js, nil
	}
	have, err := store.CountSlots(ctx, id, first, last)
	if err != nil {
		return nil, fmt.Errorf("count runs of %s: %w", id, err)
	}
	if have >= n {
		return js, nil
	}
	js.Expected = schedule.Expected(s, reg, since, now, j.Grace)
	covered, err := store.ScheduledSlots(ctx, id, first, last)
	if err != nil {
		return nil, fmt.Errorf("read runs of %s: %w", id, err)
	}
	js.Missing = schedule.Missing(js.Expected, covered)
	return js, nil
}

// Missing lists every expected slot with no row, for the jobs named (all
// when names is empty). Jobs are counted in parallel, one per CPU: counting
// slots and rows is CPU-bound, and 50 busy jobs over 40 days are 2.9 M of
// each.
func Missing(ctx context.Context, store *runtrace.Store, cfg *config.Config, names []string, since, now time.Time) ([]MissingSlot, error) {
	var jobs []*config.Job
	for i := range cfg.Jobs {
		if len(names) == 0 || contains(names, cfg.Jobs[i].Name) {
			jobs = append(jobs, &cfg.Jobs[i])
		}
	}
	results := make([]*JobSlots, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, j := range jobs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i], errs[i] = SlotsFor(ctx, store, j, since, now)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := []MissingSlot{}
	for i, js := range results {
		for _, t := range js.Missing {
			out = append(out, MissingSlot{Job: runtrace.JobID(jobs[i].Name), Slot: t.UTC(), Zone: jobs[i].Timezone})
		}
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func jobStatuses(ctx context.Context, cfg *config.Config, p state.Paths, store *runtrace.Store, now time.Time) []JobStatus {
	var out []JobStatus
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		js := JobStatus{Name: j.Name, Schedule: j.Schedule, Timezone: j.Timezone, External: j.External}
		if pz, _ := state.ReadPause(p.JobPaused(j.Name)); pz.Active(now) {
			js.Paused = pz
		}
		reg := now
		if store != nil {
			if slots, err := SlotsFor(ctx, store, j, now.Add(-7*24*time.Hour), now); err == nil {
				js.Missing7d = len(slots.Missing)
				if slots.Known {
					reg, js.Registered = slots.Registered, slots.Registered
				}
			}
			if r, err := store.Latest(ctx, runtrace.JobID(j.Name)); err == nil && r != nil {
				js.LastRun = &CycleBrief{At: r.StartedAt, Trigger: r.Trigger, Outcome: r.Outcome, Reason: r.Reason, RunID: r.ID}
			}
		}
		if s, err := j.Cron(reg); err == nil {
			js.NextSlot = s.Next(now)
		}
		out = append(out, js)
	}
	return out
}
