package notify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/schedule"
)

// MissingCheck is the agent's own dead man's switch for jobs: every minute
// it looks at the slots whose grace ended since its last look and raises
// job.missing for each one that has no row — for external jobs too, whose
// runs come through `svc-ctl exec`. Nobody has to run `svc-ctl missing`.
//
// It is incremental: a per-job watermark (a notify mark) says up to where
// slots were checked, and moves in the same transaction as the events, so a
// restart neither re-raises nor skips a slot. The first check of a job
// looks back at most firstLookBack: an agent upgraded to a version with
// notifications does not page about last month.
type MissingCheck struct {
	cfg   *config.Config
	store *runtrace.Store
	d     *Deriver
}

// firstLookBack bounds the first check of a job that has no watermark.
const firstLookBack = 24 * time.Hour

// maxMissingEvents caps the events one check raises per job; past it, one
// more event stands for the rest.
const maxMissingEvents = 3

// NewMissingCheck checks cfg's jobs against store, raising events through d.
func NewMissingCheck(cfg *config.Config, store *runtrace.Store, d *Deriver) *MissingCheck {
	return &MissingCheck{cfg: cfg, store: store, d: d}
}

func missingMarkKey(job string) string { return "missing:job:" + job }

// Check looks at every job's slots up to now and returns how many events it
// queued. The events and the moved watermarks of all jobs are written in one
// transaction, and only when some job had a slot to look at: a minute in
// which no slot ended its grace writes nothing (50 hourly jobs cost no
// fsync most minutes).
func (m *MissingCheck) Check(ctx context.Context, now time.Time) (int, error) {
	var events []runtrace.OutboxEvent
	marks := map[string]runtrace.Mark{}
	var errs []error
	for i := range m.cfg.Jobs {
		evs, mark, first, err := m.checkJob(ctx, &m.cfg.Jobs[i], now)
		if err != nil {
			errs = append(errs, fmt.Errorf("job %s: %w", m.cfg.Jobs[i].Name, err))
			continue
		}
		events = append(events, evs...)
		if mark != nil {
			marks[missingMarkKey(m.cfg.Jobs[i].Name)] = *mark
		}
		if len(evs) > 0 {
			// The job's next ok run says it is ok again (job.recovered),
			// unless it is already marked failed or missing since earlier.
			key := runtrace.SubjectMarkKey(runtrace.JobID(m.cfg.Jobs[i].Name))
			if sm, err := m.store.GetMark(ctx, key); err != nil {
				errs = append(errs, fmt.Errorf("job %s: %w", m.cfg.Jobs[i].Name, err))
			} else if sm.Value == "" {
				marks[key] = runtrace.Mark{Value: markJobMissing, At: first}
			}
		}
	}
	if len(marks) == 0 {
		return 0, errors.Join(errs...)
	}
	n, err := m.store.Emit(ctx, events, marks)
	return n, errors.Join(append(errs, err)...)
}

// checkJob returns the job's events, its new watermark (nil: unchanged,
// no slot ended its grace since the last look) and the first missing slot.
func (m *MissingCheck) checkJob(ctx context.Context, j *config.Job, now time.Time) ([]runtrace.OutboxEvent, *runtrace.Mark, time.Time, error) {
	id := runtrace.JobID(j.Name)
	reg, known, err := m.store.Registered(ctx, id)
	if err != nil || !known {
		return nil, nil, time.Time{}, err // never registered: no slot was expected yet
	}
	s, err := j.Cron(reg)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	mark, err := m.store.GetMark(ctx, missingMarkKey(j.Name))
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	lo := later(reg, now.Add(-j.Grace-firstLookBack))
	if ms, err := strconv.ParseInt(mark.Value, 10, 64); err == nil {
		lo = later(reg, time.UnixMilli(ms))
	}
	hi := now.Add(-j.Grace)
	if !hi.After(lo) {
		return nil, nil, time.Time{}, nil
	}
	n, missing, err := m.missingIn(ctx, s, id, lo, hi)
	if err != nil || n == 0 {
		return nil, nil, time.Time{}, err
	}
	next := runtrace.Mark{Value: strconv.FormatInt(hi.UnixMilli(), 10), At: now}
	if len(missing) == 0 {
		return nil, &next, time.Time{}, nil
	}
	return m.events(j, missing, now), &next, missing[0], nil
}

// missingIn counts the slots in (lo, hi] and lists those with no row;
// counting first, as `missing` does, so the common case (none missing)
// lists nothing.
func (m *MissingCheck) missingIn(ctx context.Context, s *schedule.Schedule, id string, lo, hi time.Time) (int, []time.Time, error) {
	n, first, last := s.Span(lo, hi)
	if n == 0 {
		return 0, nil, nil
	}
	have, err := m.store.CountSlots(ctx, id, first, last)
	if err != nil || have >= n {
		return n, nil, err
	}
	covered, err := m.store.ScheduledSlots(ctx, id, first, last)
	if err != nil {
		return n, nil, err
	}
	return n, schedule.Missing(s.Slots(lo, hi, 0), covered), nil
}

// events raises one event per missing slot, at most maxMissingEvents; the
// last one then speaks for the rest.
func (m *MissingCheck) events(j *config.Job, missing []time.Time, now time.Time) []runtrace.OutboxEvent {
	if len(missing) <= maxMissingEvents {
		out := make([]runtrace.OutboxEvent, 0, len(missing))
		for _, slot := range missing {
			out = append(out, m.d.Missing(j, slot, now))
		}
		return out
	}
	out := make([]runtrace.OutboxEvent, 0, maxMissingEvents)
	for _, slot := range missing[:maxMissingEvents-1] {
		out = append(out, m.d.Missing(j, slot, now))
	}
	rest := missing[maxMissingEvents-1:]
	return append(out, m.d.missingMany(j, rest, now))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
