package agent

import (
	"context"
	"time"

	"svcctl/runtrace"
)

// coverageEvery is how often the agent brings every job's slot coverage up
// to date. `svc-ctl missing`, `status` and `why` count only the slots after
// the coverage (runtrace.Coverage): refreshed hourly, a check of 40 days
// counts at most about an hour of slots per job.
const coverageEvery = time.Hour

func (a *Agent) coverageLoop(ctx context.Context) { every(ctx, coverageEvery, a.refreshCoverage) }

// refreshCoverage counts each job's slots since its coverage ended (since
// the retention window began, for a job without one) and grows the
// coverage over them when each has a row. A slot with no row stops it
// there; `missing` reports that slot and restarts the coverage past it.
func (a *Agent) refreshCoverage(ctx context.Context) {
	if a.store == nil {
		return
	}
	now := time.Now().UTC()
	for i := range a.config().Jobs {
		j := &a.config().Jobs[i]
		id := runtrace.JobID(j.Name)
		reg, known, err := a.store.Registered(ctx, id)
		if err != nil || !known {
			continue
		}
		s, err := j.Cron(reg)
		if err != nil {
			continue
		}
		from := now.Add(-a.config().Agent.Retention)
		if reg.After(from) {
			from = reg
		}
		span := func(after, through time.Time) runtrace.SlotSpan {
			n, first, last := s.Span(after, through)
			return runtrace.SlotSpan{N: n, First: first, Last: last}
		}
		if _, err := a.store.CoverThrough(ctx, id, reg, from, now.Add(-j.Grace), span); err != nil && ctx.Err() == nil {
			a.log.Warn("ledger.coverage_failed", "job", j.Name, "err", err)
		}
	}
}
