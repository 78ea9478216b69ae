package watchdog

import (
	"context"
	"errors"
	"sync"
	"time"

	"svcctl/runtrace"
)

// Recorder is where the cycle writes its run rows: the run_trace store
// (*runtrace.Store satisfies it), or nothing when the ledger is unavailable.
// A row is begun when a run starts and finished by id; a run that ends
// before it does anything is recorded whole, durably (Record) or, for a
// healthy cycle that changed nothing, without waiting for the disk
// (RecordLazy).
type Recorder interface {
	Begin(ctx context.Context, jobID string, trigger runtrace.Trigger, scheduledAt, startedAt time.Time) (int64, error)
	Finish(ctx context.Context, id int64, outcome runtrace.Outcome, reason runtrace.Reason, detail any, finishedAt time.Time) error
	Record(ctx context.Context, r runtrace.Run) (int64, error)
	RecordLazy(ctx context.Context, r runtrace.Run) (int64, error)
}

// ErrNoLedger is what recording reports when there is no usable ledger.
var ErrNoLedger = errors.New("run_trace ledger unavailable")

// NopRecorder records nothing and says so: every call returns ErrNoLedger,
// so a cycle that runs without a ledger still reports that its run was not
// recorded.
type NopRecorder struct{ Why error }

func (n NopRecorder) err() error {
	if n.Why != nil {
		return errors.Join(ErrNoLedger, n.Why)
	}
	return ErrNoLedger
}

func (n NopRecorder) Begin(context.Context, string, runtrace.Trigger, time.Time, time.Time) (int64, error) {
	return 0, n.err()
}

func (n NopRecorder) Finish(context.Context, int64, runtrace.Outcome, runtrace.Reason, any, time.Time) error {
	return n.err()
}

func (n NopRecorder) Record(context.Context, runtrace.Run) (int64, error) { return 0, n.err() }

func (n NopRecorder) RecordLazy(context.Context, runtrace.Run) (int64, error) { return 0, n.err() }

// recordErrors remembers the last recording error, so it can be shown once
// in the log and kept in watchdog.last.json.
type recordErrors struct {
	mu   sync.Mutex
	last error
}

func (r *recordErrors) set(err error) (first bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first = r.last == nil && err != nil
	r.last = err
	return first
}

// Register is what a job registration reports without a ledger.
func (n NopRecorder) Register(context.Context, string, string, time.Time) (time.Time, error) {
	return time.Time{}, n.err()
}
