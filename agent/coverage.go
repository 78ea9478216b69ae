package agent

import (
	"context"
	"time"

	"svcctl/jobs"
)

// coverageEvery is how often the agent brings every job's slot coverage up
// to date. `svc-ctl missing`, `status` and `why` count only the slots after
// the coverage (runtrace.Coverage): refreshed hourly, a check of 40 days
// counts at most about an hour of slots per job.
const coverageEvery = time.Hour

// coverageLoop refreshes the jobs' coverage (jobs.RefreshCoverage) every
// coverageEvery.
func (a *Agent) coverageLoop(ctx context.Context) {
	if a.store == nil {
		return
	}
	every(ctx, coverageEvery, func(ctx context.Context) {
		cfg := a.config()
		jobs.RefreshCoverage(ctx, a.store, cfg.Jobs, cfg.Agent.Retention, a.log)
	})
}
