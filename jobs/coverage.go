package jobs

import (
	"context"
	"log/slog"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// CoverageStore is the ledger's part the coverage refresh uses
// (*runtrace.Store).
type CoverageStore interface {
	Registered(ctx context.Context, jobID string) (time.Time, bool, error)
	CoverThrough(ctx context.Context, jobID string, registered, from, through time.Time, span runtrace.SpanFunc) (runtrace.Covered, error)
}

// RefreshCoverage counts each job's slots since its coverage ended (since
// the retention window began, for a job without one) and grows the
// coverage over them when each has a row. A slot with no row stops it
// there; `missing` reports that slot and restarts the coverage past it.
func RefreshCoverage(ctx context.Context, st CoverageStore, jobs []config.Job, retention time.Duration, log *slog.Logger) {
	now := time.Now().UTC()
	for i := range jobs {
		j := &jobs[i]
		id := runtrace.JobID(j.Name)
		reg, known, err := st.Registered(ctx, id)
		if err != nil || !known {
			continue
		}
		s, err := j.Cron(reg)
		if err != nil {
			continue
		}
		from := now.Add(-retention)
		if reg.After(from) {
			from = reg
		}
		span := func(after, through time.Time) runtrace.SlotSpan {
			n, first, last := s.Span(after, through)
			return runtrace.SlotSpan{N: n, First: first, Last: last}
		}
		if _, err := st.CoverThrough(ctx, id, reg, from, now.Add(-j.Grace), span); err != nil && ctx.Err() == nil {
			log.Warn("ledger.coverage_failed", "job", j.Name, "err", err)
		}
	}
}
