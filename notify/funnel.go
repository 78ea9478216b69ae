package notify

import (
	"context"
	"sync"
	"time"

	"svcctl/runtrace"
)

// Observer is told of every run that passes the funnel: metrics, pings.
// Both calls come after the row is committed, on the caller's goroutine:
// an observer must not block (the Pinger sends in the background).
type Observer interface {
	RunStarted(jobID string, trigger runtrace.Trigger, runID int64)
	RunFinished(r runtrace.Run)
}

// Funnel is the one place every run result passes, whoever ran it: the
// agent's cycles and jobs, the CLI's start/stop/restart cycles, `svc-ctl
// exec`, the agent's own rows. It writes the row (it is the watchdog's
// Recorder and the jobs' Ledger), queues the events the verdict raises in
// the same transaction, and then tells its observers.
type Funnel struct {
	store  *runtrace.Store
	derive *Deriver
	mu     sync.RWMutex
	obs    []Observer
	queued func()
}

// NewFunnel records into store and derives events with d (nil: no events).
func NewFunnel(store *runtrace.Store, d *Deriver) *Funnel {
	return &Funnel{store: store, derive: d}
}

// Observe adds an observer.
func (f *Funnel) Observe(o Observer) {
	f.mu.Lock()
	f.obs = append(f.obs, o)
	f.mu.Unlock()
}

// OnQueued sets what is called after a commit that queued events (the
// agent's sender wakes, so delivery does not wait for its poll).
func (f *Funnel) OnQueued(fn func()) {
	f.mu.Lock()
	f.queued = fn
	f.mu.Unlock()
}

func (f *Funnel) observers() ([]Observer, func()) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.obs, f.queued
}

// Begin writes a run as running (runtrace.Store.Begin) and tells observers.
func (f *Funnel) Begin(ctx context.Context, jobID string, trigger runtrace.Trigger, scheduledAt, startedAt time.Time) (int64, error) {
	id, err := f.store.Begin(ctx, jobID, trigger, scheduledAt, startedAt)
	if err != nil {
		return 0, err
	}
	obs, _ := f.observers()
	for _, o := range obs {
		o.RunStarted(jobID, trigger, id)
	}
	return id, nil
}

// Finish writes the verdict and the events it raises in one transaction,
// then tells observers.
func (f *Funnel) Finish(ctx context.Context, id int64, outcome runtrace.Outcome, reason runtrace.Reason, detail any, finishedAt time.Time) error {
	var run runtrace.Run
	queued := 0
	emit := func(r runtrace.Run, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
		run = r
		if f.derive == nil {
			return nil, m
		}
		evs, next := f.derive.Emit(r, m)
		queued = len(evs)
		return evs, next
	}
	if err := f.store.FinishEmit(ctx, id, outcome, reason, detail, finishedAt, emit); err != nil {
		return err
	}
	obs, wake := f.observers()
	if queued > 0 && wake != nil {
		wake()
	}
	for _, o := range obs {
		o.RunFinished(run)
	}
	return nil
}

// Record writes a run that ended before it did anything (a cycle that ended
// at its first look) as one row, with the events it raises, durably; then
// tells observers it started and finished.
func (f *Funnel) Record(ctx context.Context, r runtrace.Run) (int64, error) {
	return f.record(ctx, r, f.store.RecordEmit)
}

// RecordLazy is Record without waiting for the disk (runtrace.RecordLazy),
// for a healthy cycle that changed nothing; should its verdict raise an
// event after all, it is written durably (runtrace.RecordLazyEmit).
func (f *Funnel) RecordLazy(ctx context.Context, r runtrace.Run) (int64, error) {
	return f.record(ctx, r, f.store.RecordLazyEmit)
}

func (f *Funnel) record(ctx context.Context, r runtrace.Run, write func(context.Context, runtrace.Run, runtrace.Emitter) (int64, error)) (int64, error) {
	var run runtrace.Run
	queued := 0
	emit := func(rr runtrace.Run, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
		run = rr
		if f.derive == nil {
			return nil, m
		}
		evs, next := f.derive.Emit(rr, m)
		queued = len(evs)
		return evs, next
	}
	id, err := write(ctx, r, emit)
	if err != nil {
		return 0, err
	}
	obs, wake := f.observers()
	if queued > 0 && wake != nil {
		wake()
	}
	for _, o := range obs {
		o.RunStarted(r.JobID, r.Trigger, id)
		o.RunFinished(run)
	}
	return id, nil
}

// Register passes a job registration through to the store.
func (f *Funnel) Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error) {
	return f.store.Register(ctx, jobID, spec, at)
}

// Store is the ledger the funnel writes.
func (f *Funnel) Store() *runtrace.Store { return f.store }
