package runtrace

import (
	"context"
	"fmt"
	"time"
)

// The Queue's writes. Each goes through writeOrQueue, the one path that
// decides between the database and the queue: refused once the queue is
// closed, queued while writes wait (so they stay in order), else written,
// and queued after all when the write fails because of the disk.

// route is what a write's own look at the queue, under its lock, decided.
type route int

const (
	routeWrite route = iota // write it now, unless writes wait
	routeQueue              // queue it whatever the disk: it follows its begin, being written now
	routeDone               // nothing left to do: merged into a waiting write, or its row was dropped
)

// write is one write as writeOrQueue takes it.
type write struct {
	// resolve, when set, looks at the queue first (under its lock): a
	// provisional id lands on its waiting begin, or on the id it got.
	resolve func() (route, error)
	// enqueue queues the write (under the lock) and returns what the
	// caller gets back for it (a provisional id, a count).
	enqueue func() int64
	// store writes it to the database, outside the queue's locks.
	store func() (int64, error)
}

// writeOrQueue is the one path of every write of the Queue.
func (q *Queue) writeOrQueue(w write) (int64, error) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0, ErrQueueClosed
	}
	r := routeWrite
	if w.resolve != nil {
		var err error
		if r, err = w.resolve(); r == routeDone || err != nil {
			q.mu.Unlock()
			return 0, err
		}
	}
	if r == routeQueue || q.deferLocked() {
		v := w.enqueue()
		q.mu.Unlock()
		return v, nil
	}
	q.mu.Unlock()
	v, err := w.store()
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		v = w.enqueue()
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return v, nil
	}
	return v, err
}

// Begin is Store.Begin. While writes fail it returns a provisional id
// (negative) that Finish accepts.
func (q *Queue) Begin(ctx context.Context, jobID string, trigger Trigger, scheduledAt, startedAt time.Time) (int64, error) {
	if err := checkStart(jobID, trigger, startedAt); err != nil {
		return 0, fmt.Errorf("begin run of %q: %w", jobID, err)
	}
	run := &Run{JobID: jobID, Trigger: trigger, ScheduledAt: utcOrZero(scheduledAt), StartedAt: startedAt.UTC(), Outcome: OutcomeRunning}
	return q.writeOrQueue(write{
		enqueue: func() int64 { return q.beginLocked(run) },
		store:   func() (int64, error) { return q.st.Begin(ctx, jobID, trigger, scheduledAt, startedAt) },
	})
}

func (q *Queue) beginLocked(run *Run) int64 {
	q.prov--
	o := &op{Kind: opBegin, Prov: q.prov, Run: run, Boot: q.st.boot}
	q.begun[o.Prov] = o
	q.pushLocked(o)
	return o.Prov
}

// Finish is Store.Finish; id may be a provisional id from Begin.
func (q *Queue) Finish(ctx context.Context, id int64, outcome Outcome, reason Reason, detail any, finishedAt time.Time) error {
	return q.FinishEmit(ctx, id, outcome, reason, detail, finishedAt, nil)
}

// FinishEmit is Store.FinishEmit; id may be a provisional id from Begin.
// The events are derived when the verdict is finally written, in its
// transaction.
func (q *Queue) FinishEmit(ctx context.Context, id int64, outcome Outcome, reason Reason, detail any, finishedAt time.Time, emit Emitter) error {
	if err := checkVerdict(outcome, reason, finishedAt); err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	d, err := encodeDetail(detail)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	fin := &op{Kind: opFinish, Ref: id, Outcome: outcome, Reason: reason, Detail: rawDetail(d),
		FinishedAt: finishedAt.UTC(), emit: emit, Emits: emit != nil}
	_, err = q.writeOrQueue(write{
		resolve: func() (route, error) { return q.finishProvLocked(fin) },
		enqueue: func() int64 { q.pushLocked(fin); return 0 },
		store: func() (int64, error) {
			return 0, q.st.FinishEmit(ctx, fin.Ref, outcome, reason, fin.Detail, finishedAt, emit)
		},
	})
	return err
}

// finishProvLocked lands a verdict for a provisional id: merged into its
// queued begin (one finished row), aimed at the id the begin got when it was
// written late, or queued right behind a begin being written now. A real id
// is written as it is.
func (q *Queue) finishProvLocked(fin *op) (route, error) {
	prov := fin.Ref
	if prov >= 0 {
		return routeWrite, nil
	}
	if b := q.begun[prov]; b != nil {
		if b.inflight {
			return routeQueue, nil // behind its begin; Ref resolves when it is written
		}
		r := *b.Run
		r.Outcome, r.Reason, r.FinishedAt, r.Detail = fin.Outcome, fin.Reason, fin.FinishedAt, fin.Detail
		r.Duration = max(0, r.FinishedAt.Sub(r.StartedAt)).Truncate(time.Millisecond)
		b.Kind, b.Run, b.emit, b.Emits = opRecord, &r, fin.emit, fin.Emits
		delete(q.begun, prov)
		return routeDone, nil
	}
	if q.dropped[prov] {
		delete(q.dropped, prov)
		return routeDone, nil // its row was dropped with the begin, and counted then
	}
	if real, ok := q.written[prov]; ok {
		delete(q.written, prov)
		fin.Ref = real
		return routeWrite, nil
	}
	return routeDone, fmt.Errorf("finish run %d: %w (a provisional id this process did not hand out)", prov, ErrNotFound)
}

// Note is Store.Note; id may be a provisional id from Begin. While writes
// fail it waits in the queue (a begin still waiting takes the detail
// along), and is spilled with the rest.
func (q *Queue) Note(ctx context.Context, id int64, detail any) error {
	d, err := encodeDetail(detail)
	if err != nil {
		return fmt.Errorf("note run %d: %w", id, err)
	}
	note := &op{Kind: opNote, Ref: id, Detail: rawDetail(d)}
	_, err = q.writeOrQueue(write{
		resolve: func() (route, error) { return q.noteProvLocked(note) },
		enqueue: func() int64 { q.pushLocked(note); return 0 },
		store:   func() (int64, error) { return 0, q.st.Note(ctx, note.Ref, note.Detail) },
	})
	return err
}

// noteProvLocked lands a note for a provisional id: taken along by its
// queued begin, aimed at the id the begin got, or queued right behind a
// begin being written now (Flush resolves its id, as it does a verdict's).
func (q *Queue) noteProvLocked(note *op) (route, error) {
	id := note.Ref
	if id >= 0 {
		return routeWrite, nil
	}
	if b := q.begun[id]; b != nil {
		if b.inflight {
			return routeQueue, nil
		}
		r := *b.Run
		r.Detail = note.Detail
		b.Run = &r
		return routeDone, nil
	}
	if q.dropped[id] {
		return routeDone, nil // its row was dropped with the begin, and counted then
	}
	if real, ok := q.written[id]; ok {
		note.Ref = real
		return routeWrite, nil
	}
	return routeDone, fmt.Errorf("note run %d: %w (a provisional id this process did not hand out)", id, ErrNotFound)
}

// Record is Store.Record. While writes fail the row is queued and a
// provisional id returned.
func (q *Queue) Record(ctx context.Context, r Run) (int64, error) {
	return q.RecordEmit(ctx, r, nil)
}

// RecordEmit is Store.RecordEmit, queued while writes fail.
func (q *Queue) RecordEmit(ctx context.Context, r Run, emit Emitter) (int64, error) {
	return q.record(r, emit, func(r Run) (int64, error) { return q.st.RecordEmit(ctx, r, emit) })
}

// RecordLazy is Store.RecordLazy, queued while writes fail.
func (q *Queue) RecordLazy(ctx context.Context, r Run) (int64, error) {
	return q.RecordLazyEmit(ctx, r, nil)
}

// RecordLazyEmit is Store.RecordLazyEmit, queued while writes fail.
func (q *Queue) RecordLazyEmit(ctx context.Context, r Run, emit Emitter) (int64, error) {
	return q.record(r, emit, func(r Run) (int64, error) { return q.st.RecordLazyEmit(ctx, r, emit) })
}

func (q *Queue) record(r Run, emit Emitter, store func(Run) (int64, error)) (int64, error) {
	if err := checkRecord(&r); err != nil {
		return 0, err
	}
	return q.writeOrQueue(write{
		enqueue: func() int64 { return q.recordLocked(r, emit) },
		store:   func() (int64, error) { return store(r) },
	})
}

func (q *Queue) recordLocked(r Run, emit Emitter) int64 {
	q.prov--
	r.ID = 0
	r.StartedAt, r.FinishedAt, r.ScheduledAt = r.StartedAt.UTC(), r.FinishedAt.UTC(), utcOrZero(r.ScheduledAt)
	q.pushLocked(&op{Kind: opRecord, Prov: q.prov, Run: &r, emit: emit, Emits: emit != nil, Boot: q.st.boot})
	return q.prov
}

// Emit is Store.Emit (events raised by no row), queued while writes fail;
// the count is then of the events queued.
func (q *Queue) Emit(ctx context.Context, events []OutboxEvent, marks map[string]Mark) (int, error) {
	n, err := q.writeOrQueue(write{
		enqueue: func() int64 {
			q.pushLocked(&op{Kind: opEvents, Events: events, Marks: marks})
			return int64(len(events))
		},
		store: func() (int64, error) { n, err := q.st.Emit(ctx, events, marks); return int64(n), err },
	})
	return int(n), err
}

// Beat is Store.Beat. A heartbeat that cannot be written is kept (only the
// newest) and written after what waits; while writes fail it is what the
// retry loop tries.
func (q *Queue) Beat(ctx context.Context, h Heartbeat) error {
	if h.BeatAt.IsZero() {
		h.BeatAt = q.o.Now()
	}
	_, err := q.writeOrQueue(write{
		enqueue: func() int64 { q.beat = &h; return 0 },
		store:   func() (int64, error) { return 0, q.st.Beat(ctx, h) },
	})
	return err
}

// DeleteHeartbeat is Store.DeleteHeartbeat; while writes fail it is queued
// (and spilled), so the next agent deletes the row. A beat still waiting is
// dropped: the row it would renew is being deleted.
func (q *Queue) DeleteHeartbeat(ctx context.Context, instanceID string) error {
	_, err := q.writeOrQueue(write{
		resolve: func() (route, error) { q.beat = nil; return routeWrite, nil },
		enqueue: func() int64 { q.pushLocked(&op{Kind: opDeleteBeat, Instance: instanceID}); return 0 },
		store:   func() (int64, error) { return 0, q.st.DeleteHeartbeat(ctx, instanceID) },
	})
	return err
}

// Register is Store.Register (not queued: a job whose registration cannot be
// written counts its slots from now, and registers again at the next start).
func (q *Queue) Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error) {
	return q.st.Register(ctx, jobID, spec, at)
}
