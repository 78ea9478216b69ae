package notify

import (
	"context"
	"encoding/json"
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
	w      Writer
	derive *Deriver
	mu     sync.RWMutex
	obs    []Observer
	queued func()
	begun  sync.Map // run id -> runtrace.Run as begun, until finished
}

// Writer is what a funnel writes rows through: the Store itself, or a
// runtrace.Queue in front of it (the agent's and the CLI's: a row the disk
// refuses waits there, in order, and the events of its verdict are derived
// when it is finally written).
type Writer interface {
	Begin(ctx context.Context, jobID string, trigger runtrace.Trigger, scheduledAt, startedAt time.Time) (int64, error)
	FinishEmit(ctx context.Context, id int64, outcome runtrace.Outcome, reason runtrace.Reason, detail any, finishedAt time.Time, emit runtrace.Emitter) error
	RecordEmit(ctx context.Context, r runtrace.Run, emit runtrace.Emitter) (int64, error)
	RecordLazyEmit(ctx context.Context, r runtrace.Run, emit runtrace.Emitter) (int64, error)
	Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error)
	Note(ctx context.Context, id int64, detail any) error
}

// NewFunnel records into store and derives events with d (nil: no events).
func NewFunnel(store *runtrace.Store, d *Deriver) *Funnel {
	return &Funnel{store: store, w: store, derive: d}
}

// Through makes the funnel write through w, a writer in front of its store
// (a runtrace.Queue), and returns it.
func (f *Funnel) Through(w Writer) *Funnel {
	f.w = w
	return f
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
	id, err := f.w.Begin(ctx, jobID, trigger, scheduledAt, startedAt)
	if err != nil {
		return 0, err
	}
	f.begun.Store(id, runtrace.Run{ID: id, JobID: jobID, Trigger: trigger, ScheduledAt: scheduledAt.UTC(), StartedAt: startedAt.UTC()})
	obs, _ := f.observers()
	for _, o := range obs {
		o.RunStarted(jobID, trigger, id)
	}
	return id, nil
}

// Note sets the detail of a run still running (runtrace.Store.Note): what
// it started, for the reaper should the agent die before the verdict. It
// raises no event.
func (f *Funnel) Note(ctx context.Context, id int64, detail any) error {
	return f.w.Note(ctx, id, detail)
}

// Finish writes the verdict and the events it raises in one transaction,
// then tells observers. When the writer keeps the row for later (the disk is
// full), the events are derived when it is written, and observers are told
// now of the run as this process knows it.
func (f *Funnel) Finish(ctx context.Context, id int64, outcome runtrace.Outcome, reason runtrace.Reason, detail any, finishedAt time.Time) error {
	l := &late{}
	err := f.w.FinishEmit(ctx, id, outcome, reason, detail, finishedAt, l.emitter(f.derive))
	begun, _ := f.begun.LoadAndDelete(id)
	if err != nil {
		return err
	}
	r, queued, ok := l.result()
	if !ok {
		r, _ = begun.(runtrace.Run)
		r.ID, r.Outcome, r.Reason, r.FinishedAt = id, outcome, reason, finishedAt.UTC()
		if b, err := json.Marshal(detail); err == nil {
			r.Detail = b
		}
		r = withDuration(r)
	}
	obs, wake := f.observers()
	if queued > 0 && wake != nil {
		wake()
	}
	for _, o := range obs {
		o.RunFinished(r)
	}
	return nil
}

// late is what an emitter saw of the run it wrote. The emitter may run
// later, on the writer's goroutine (a row written late), hence the lock.
type late struct {
	mu     sync.Mutex
	run    runtrace.Run
	queued int
	done   bool
}

func (l *late) emitter(d *Deriver) runtrace.Emitter {
	return func(r runtrace.Run, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
		evs, next := []runtrace.OutboxEvent(nil), m
		if d != nil {
			evs, next = d.Emit(r, m)
		}
		l.mu.Lock()
		l.run, l.queued, l.done = r, len(evs), true
		l.mu.Unlock()
		return evs, next
	}
}

// result is the run as written, and whether it was written yet.
func (l *late) result() (runtrace.Run, int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.run, l.queued, l.done
}

func withDuration(r runtrace.Run) runtrace.Run {
	if !r.StartedAt.IsZero() && !r.FinishedAt.IsZero() {
		r.Duration = max(0, r.FinishedAt.Sub(r.StartedAt)).Truncate(time.Millisecond)
	}
	return r
}

// Record writes a run that ended before it did anything (a cycle that ended
// at its first look) as one row, with the events it raises, durably; then
// tells observers it started and finished.
func (f *Funnel) Record(ctx context.Context, r runtrace.Run) (int64, error) {
	return f.record(ctx, r, f.w.RecordEmit)
}

// RecordLazy is Record without waiting for the disk (runtrace.RecordLazy),
// for a healthy cycle that changed nothing; should its verdict raise an
// event after all, it is written durably (runtrace.RecordLazyEmit).
func (f *Funnel) RecordLazy(ctx context.Context, r runtrace.Run) (int64, error) {
	return f.record(ctx, r, f.w.RecordLazyEmit)
}

func (f *Funnel) record(ctx context.Context, r runtrace.Run, write func(context.Context, runtrace.Run, runtrace.Emitter) (int64, error)) (int64, error) {
	l := &late{}
	id, err := write(ctx, r, l.emitter(f.derive))
	if err != nil {
		return 0, err
	}
	run, queued, ok := l.result()
	if !ok { // waits in the writer's queue: the run as given
		run = r
		run.ID = id
		if run.FinishedAt.IsZero() {
			run.FinishedAt = run.StartedAt
		}
		run = withDuration(run)
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
	return f.w.Register(ctx, jobID, spec, at)
}

// Store is the ledger the funnel writes.
func (f *Funnel) Store() *runtrace.Store { return f.store }
