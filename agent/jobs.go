package agent

import (
	"context"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// jobRunner runs the scheduled jobs (issue: scheduled jobs). Until it lands,
// the agent supervises services only.
type jobRunner struct{}

func (a *Agent) startJobs(loopCtx, runCtx context.Context) {}
func (a *Agent) wakeJobs(runCtx context.Context)           {}
func (a *Agent) waitJobs()                                 {}
func (a *Agent) jobsInFlight() map[int64]string            { return map[int64]string{} }

func jobStatuses(ctx context.Context, cfg *config.Config, p Paths, store *runtrace.Store, now time.Time) []JobStatus {
	return nil
}
