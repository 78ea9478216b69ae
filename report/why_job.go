package report

import (
	"context"
	"fmt"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/schedule"
	"svcctl/state"
)

// Why a job ran or did not at a time: the slot the schedule had then, the
// row that covers it, or the words for a slot with no row.

// whyJob answers for a job. With at, the run that covers that instant (a
// manual run counts), else the slot at or before it. Without, the newest
// thing that happened: the newest row, unless a slot that came due after
// it, past its grace, has no row: then that missing slot is the news. A
// slot still within its grace is not missing yet, and the answer says so.
func whyJob(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at time.Time, width time.Duration, now time.Time) (*Diagnosis, error) {
	j := cfg.Job(name)
	d := &Diagnosis{Target: runtrace.JobID(name)}
	reg, known, err := store.Registered(ctx, d.Target)
	if err != nil {
		return nil, err
	}
	var s *schedule.Schedule
	if known {
		if s, err = j.Cron(reg); err != nil {
			return nil, err
		}
	}
	if !at.IsZero() {
		return whyJobAt(ctx, store, cfg, p, d, s, reg, at, width)
	}
	newest, err := coveringRow(ctx, store, d.Target, time.Time{}, 0)
	if err != nil {
		return nil, err
	}
	if s != nil {
		if slots := s.Slots(maxTime(reg, now.Add(-j.Grace).Add(-400*24*time.Hour)), now.Add(-j.Grace), 0); len(slots) > 0 {
			slot := slots[len(slots)-1].UTC()
			row, err := runForSlot(ctx, store, d.Target, slot)
			if err != nil {
				return nil, err
			}
			if row == nil && (newest == nil || newest.StartedAt.Before(slot)) {
				d.Slot = &slot
				noRow(d, j, p, slot)
				pendingSlot(ctx, store, d, j, s, now)
				return d, nil
			}
		}
	}
	if newest == nil {
		d.Branch = "no-row"
		switch {
		case !known:
			d.Means = "never run: the job was never registered (no agent has loaded it, no `svc-ctl exec` has recorded it)"
			d.LookNext = []string{"is the agent running with this config? `svc-ctl status --config " + cfg.Path + "`"}
		default:
			d.Means = fmt.Sprintf("no slot has come due yet (registered %s; next slot %s)", reg.Format(time.RFC3339), s.Next(now).Format(time.RFC3339))
			d.LookNext = []string{"`svc-ctl schedule next " + name + "`", "`svc-ctl run " + name + "` runs it now"}
		}
		if s != nil {
			pendingSlot(ctx, store, d, j, s, now)
		}
		return d, nil
	}
	d.Row = newest
	if !newest.ScheduledAt.IsZero() {
		slot := newest.ScheduledAt.UTC()
		d.Slot = &slot
	}
	explain(d, newest, cfg, p, name)
	if s != nil {
		pendingSlot(ctx, store, d, j, s, now)
	}
	return d, nil
}

// whyJobAt answers for the instant at: the run that covers it (started by
// then and not finished before it), else the slot at or before it.
func whyJobAt(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, d *Diagnosis, s *schedule.Schedule, reg, at time.Time, width time.Duration) (*Diagnosis, error) {
	_, name := runtrace.SplitID(d.Target)
	j := cfg.Job(name)
	if r, err := coveringRow(ctx, store, d.Target, at, width); err != nil {
		return nil, err
	} else if r != nil && !r.FinishedAt.IsZero() && !r.FinishedAt.Before(at) {
		d.Row = r
		if !r.ScheduledAt.IsZero() {
			slot := r.ScheduledAt.UTC()
			d.Slot = &slot
		}
		explain(d, r, cfg, p, name)
		return d, nil
	}
	if s == nil {
		d.Branch = "no-row"
		d.Means = "never run: the job was never registered (no agent has loaded it, no `svc-ctl exec --scheduled` has recorded a slot of it)"
		return d, nil
	}
	slots := s.Slots(maxTime(reg, at.Add(-400*24*time.Hour)), at.Add(width-time.Nanosecond), 0)
	if len(slots) == 0 {
		d.Branch = "no-row"
		d.Means = fmt.Sprintf("no slot had come due by then (registered %s)", reg.Format(time.RFC3339))
		d.LookNext = []string{"`svc-ctl schedule next " + j.Name + "`"}
		return d, nil
	}
	slot := slots[len(slots)-1].UTC()
	d.Slot = &slot
	row, err := runForSlot(ctx, store, d.Target, slot)
	if err != nil {
		return nil, err
	}
	if row == nil {
		noRow(d, j, p, slot)
		return d, nil
	}
	d.Row = row
	explain(d, row, cfg, p, j.Name)
	return d, nil
}

// whyRemovedJob answers from the history of a job the config no longer
// has: its newest row, or the one covering at.
func whyRemovedJob(ctx context.Context, store *runtrace.Store, cfg *config.Config, p state.Paths, name string, at time.Time, width time.Duration) (*Diagnosis, error) {
	d := &Diagnosis{Target: runtrace.JobID(name)}
	r, err := coveringRow(ctx, store, d.Target, at, width)
	if err != nil || r == nil {
		return nil, err
	}
	d.Row = r
	if !r.ScheduledAt.IsZero() {
		slot := r.ScheduledAt.UTC()
		d.Slot = &slot
	}
	explain(d, r, cfg, p, name)
	return d, nil
}

// noRow is the answer for a slot past its grace without a row.
func noRow(d *Diagnosis, j *config.Job, p state.Paths, slot time.Time) {
	d.Branch = "no-row"
	d.Failure = true
	d.Means = fmt.Sprintf("never run: the slot %s (%s) has no row", slot.Format(time.RFC3339), slot.In(j.Location).Format("2006-01-02 15:04 MST"))
	d.LookNext = noRowHints(j, p)
}

// pendingSlot notes the newest slot that came due but is still within its
// grace without a row: it may still start, so it is not missing yet.
func pendingSlot(ctx context.Context, store *runtrace.Store, d *Diagnosis, j *config.Job, s *schedule.Schedule, now time.Time) {
	slots := s.Slots(now.Add(-j.Grace), now, 0)
	if len(slots) == 0 {
		return
	}
	slot := slots[len(slots)-1].UTC()
	if row, err := runForSlot(ctx, store, d.Target, slot); err != nil || row != nil {
		return // it has its row (or the ledger cannot say)
	}
	d.Pending = &PendingSlot{Slot: slot, GraceUntil: slot.Add(j.Grace)}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func runForSlot(ctx context.Context, store *runtrace.Store, job string, slot time.Time) (*runtrace.Run, error) {
	rs, err := store.Runs(ctx, runtrace.Filter{JobID: job, Since: slot.Add(-time.Minute), Limit: 500})
	if err != nil {
		return nil, err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].ScheduledAt.Unix() == slot.Unix() {
			return &rs[i], nil
		}
	}
	return nil, nil
}

func noRowHints(j *config.Job, p state.Paths) []string {
	if j.External {
		return []string{
			"this job is external: did the outside scheduler run `svc-ctl exec " + j.Name + " --scheduled -- ...`? check its own log (cron, launchd, Task Scheduler)",
			"`svc-ctl schedule next " + j.Name + "`: is the schedule read in the zone you meant (" + j.Timezone + ")?",
		}
	}
	return []string{
		"was the agent running then? `svc-ctl runs --job agent` (startups, wakes) and its heartbeat in `svc-ctl status`",
		"`svc-ctl schedule next " + j.Name + "`: is the schedule read in the zone you meant (" + j.Timezone + ")?",
		"catch_up = " + fmt.Sprint(j.CatchUp) + ": with false, slots missed while the agent was down are only reported",
		"the agent's log: `svc-ctl logs agent`",
	}
}
