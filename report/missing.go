package report

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
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
	// Expected lists the expected slots of the parts of the window that have
	// a gap, oldest first; the rest of the window is known complete and is
	// not listed.
	Expected []time.Time
	Missing  []time.Time
}

// SlotsFor computes a job's missing slots in (since, now-grace].
//
// It counts, never lists, where it can, and counts only what the ledger
// does not already vouch for: runtrace keeps per job a coverage, a span of
// slots each known to have a row, and SlotsFor grows it as it counts (on a
// read-only store it counts and records nothing). So a check of 40 days
// counts the slots since the last check and, once, the part of the window
// before the coverage. Every scheduled_at svc-ctl writes is a slot of the
// job's current schedule (runs, catch-ups, `exec --scheduled`), and a
// schedule change is a new registration (which drops the coverage), so
// equal counts mean equal sets. Only a part whose counts differ is listed
// and compared. The coverage never hides a slot: it grows only over parts
// counted complete in the transaction that records it, and a deleted row
// shrinks it at once (runtrace.Coverage).
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
	lo, hi := since, now.Add(-j.Grace)
	if reg.After(lo) {
		lo = reg
	}
	if !hi.After(lo) {
		return js, nil
	}
	sl := slotter{store: store, id: id, reg: reg, s: s}
	// The slots after the coverage, up to hi.
	after, err := store.CoverThrough(ctx, id, reg, lo, hi, sl.span)
	if err != nil {
		return nil, fmt.Errorf("count runs of %s: %w", id, err)
	}
	var gaps []gap
	if !after.Complete {
		// Counted from the coverage's end when it adjoined, else from lo
		// (runtrace.CoverThrough): either way a tail past the gap's last
		// missing slot can start a new coverage.
		gaps = append(gaps, gap{span: after.Counted, base: after.Coverage, hasBase: after.Ok, below: false})
	}
	// The slots before the coverage, from lo.
	if c := after.Coverage; after.Ok && c.From.After(lo) {
		end := c.From.Add(-time.Millisecond)
		adjoins := !end.After(hi)
		if !adjoins {
			end = hi // the coverage starts after the window: count the window alone
		}
		if bs := sl.span(lo, end); bs.N > 0 {
			complete, err := sl.count(ctx, c, bs, adjoins)
			if err != nil {
				return nil, err
			}
			if !complete {
				gaps = append(gaps, gap{span: bs, base: c, hasBase: true, below: adjoins})
			}
		}
	}
	for _, g := range gaps {
		exp, miss, err := sl.list(ctx, g)
		if err != nil {
			return nil, err
		}
		js.Expected = append(js.Expected, exp...)
		js.Missing = append(js.Missing, miss...)
	}
	slices.SortFunc(js.Expected, time.Time.Compare)
	slices.SortFunc(js.Missing, time.Time.Compare)
	return js, nil
}

// slotter counts and lists one job's slots against the ledger.
type slotter struct {
	store *runtrace.Store
	id    string
	reg   time.Time
	s     *schedule.Schedule
}

// span is the job's expected slots in (after, through].
func (sl slotter) span(after, through time.Time) runtrace.SlotSpan {
	n, first, last := sl.s.Span(after, through)
	return runtrace.SlotSpan{N: n, First: first, Last: last}
}

// count says whether every slot of sp has a row, growing the coverage c
// downwards over sp when sp adjoins it.
func (sl slotter) count(ctx context.Context, c runtrace.Coverage, sp runtrace.SlotSpan, adjoins bool) (bool, error) {
	var complete bool
	var err error
	if adjoins {
		complete, _, err = sl.store.ExtendCoverage(ctx, sl.id, sl.reg, c, sp)
	} else {
		var have int
		have, err = sl.store.CountSlots(ctx, sl.id, sp.First, sp.Last)
		complete = have >= sp.N
	}
	if err != nil {
		return false, fmt.Errorf("count runs of %s: %w", sl.id, err)
	}
	return complete, nil
}

// gap is a span whose counts differ, with the coverage it was counted
// against: below means it ends just before that coverage's start.
type gap struct {
	span    runtrace.SlotSpan
	base    runtrace.Coverage
	hasBase bool
	below   bool
}

// list compares g's expected slots with its rows and returns both the
// expected and the missing ones. The slots after the last missing one are
// complete: they become (or join) the coverage, so the next check does not
// count them again. A missing slot stays missing, so coverage can never
// grow over it; it restarts after it.
func (sl slotter) list(ctx context.Context, g gap) (expected, missing []time.Time, err error) {
	expected = sl.s.Slots(g.span.First.Add(-time.Millisecond), g.span.Last, 0)
	covered, err := sl.store.ScheduledSlots(ctx, sl.id, g.span.First, g.span.Last)
	if err != nil {
		return nil, nil, fmt.Errorf("read runs of %s: %w", sl.id, err)
	}
	missing = schedule.Missing(expected, covered)
	if len(missing) == 0 {
		return expected, nil, nil // rows arrived since the count
	}
	tail := sl.span(missing[len(missing)-1], g.span.Last)
	switch {
	case tail.N == 0:
	case g.below:
		_, _, err = sl.store.ExtendCoverage(ctx, sl.id, sl.reg, g.base, tail)
	default:
		var base runtrace.Coverage
		if g.hasBase {
			base = g.base
		}
		_, _, err = sl.store.StartCoverage(ctx, sl.id, sl.reg, base, tail)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("record coverage of %s: %w", sl.id, err)
	}
	return expected, missing, nil
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
		js := JobStatus{Name: j.Name, Schedule: j.Schedule, Timezone: j.Timezone, External: j.External, Log: p.JobLog(j.Name)}
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
