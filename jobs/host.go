package jobs

import (
	"context"
	"log/slog"
	"time"

	"svcctl/internal/redact"
	"svcctl/runtrace"
	"svcctl/state"
)

// Host is what the runner needs of the agent that runs it: where it logs
// and records, how it starts goroutines (under its L2 net), and whether it
// drains. The runner never calls the agent otherwise.
type Host struct {
	Log   *slog.Logger
	Paths state.Paths
	// Store keeps the jobs' registrations and tells which slots have rows
	// (catch-up); nil when there is no ledger.
	Store Store
	// Rec records the runs' rows: begun before a run starts, finished with
	// its verdict (and noted with its process when it has Note).
	Rec Recorder
	// RecordSlot records a slot's verdict that ran nothing (skipped:
	// paused, overlap, draining).
	RecordSlot func(jobID string, trigger runtrace.Trigger, slot time.Time, outcome runtrace.Outcome, reason runtrace.Reason, detail any)
	// GoSafe starts a loop that starts again after a panic; the channel is
	// closed when it has ended for good. GoOnce runs one piece of work;
	// onPanic is told of a panic so it can finish the run's row.
	GoSafe func(ctx context.Context, name string, fn func(context.Context)) <-chan struct{}
	GoOnce func(name string, fn func(), onPanic func(p any, stack string))
	// Draining is true once the agent stops: no slot starts a run then.
	Draining func() bool
	// Redactor is the one in force (a reload changes it).
	Redactor func() *redact.Redactor
	// CatchUpSpread spreads the catch-ups of many jobs after a wake.
	CatchUpSpread time.Duration
}

// Recorder records a run's row: begun when it starts, finished by id. The
// agent's funnel and *runtrace.Store are ones.
type Recorder interface {
	Begin(ctx context.Context, jobID string, trigger runtrace.Trigger, scheduledAt, startedAt time.Time) (int64, error)
	Finish(ctx context.Context, id int64, outcome runtrace.Outcome, reason runtrace.Reason, detail any, finishedAt time.Time) error
}

// Store is the ledger's part the schedule reads: when a job's slots start
// to count, and which slots have rows.
type Store interface {
	Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error)
	ScheduledSlots(ctx context.Context, jobID string, from, to time.Time) ([]time.Time, error)
}
