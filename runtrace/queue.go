package runtrace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// Queue is the ledger as the agent writes it: the Store's writes, but a row
// the disk cannot take (full, over quota, read-only, locked, damaged) is kept
// in memory and written later, in order and with its own times, as soon as a
// write succeeds again. Nothing a cycle or a job does waits on the disk: once
// a write has failed, further writes go straight to the queue and only the
// retry loop (Run) touches the database until the queue is empty.
//
// Run ids: a row begun while writes fail has no id yet. Begin then returns a
// provisional id (negative); Finish with it lands on the right row whatever
// happened in between: the queued begin is turned into one finished row, or,
// if the begin was written late, the verdict goes to the id it got. Events
// raised by a verdict (FinishEmit, RecordEmit) are derived in the transaction
// that finally writes it, so they follow the row into the outbox.
//
// Bounds: at most QueueOptions.Max row writes wait; past that the oldest is
// dropped and counted (Health.Lost). On Close what is still waiting goes to a
// spill file outside the state dir (spill.go), which the next agent imports;
// what cannot be spilled is counted, never dropped silently.
type Queue struct {
	st  *Store
	o   QueueOptions
	dir string

	flushMu sync.Mutex // one flush at a time: the queue is written in order
	mu      sync.Mutex
	ops     []*op
	rows    int             // row writes among ops (bounded by Max)
	begun   map[int64]*op   // provisional id -> its queued begin, until written or finished
	written map[int64]int64 // provisional id -> the id its begin got when written late
	dropped map[int64]bool  // provisional ids whose begin was dropped (queue full)
	prov    int64           // the last provisional id handed out
	beat    *Heartbeat      // the newest heartbeat that could not be written
	h       Health
	closed  bool
	kick    chan struct{}
	// waits tells Run that writes started to wait (a failed write): Run
	// sleeps without a timer while nothing waits.
	waits chan struct{}
}

// QueueOptions tune a Queue. The zero value is what the agent uses.
type QueueOptions struct {
	// Max bounds the waiting row writes (default 10,000).
	Max int
	// Retry is how often the retry loop tries the database while writes
	// fail (default 1s): a failed try on a full disk costs one syscall.
	Retry time.Duration
	// SpillDirs are where Close puts what it could not write, first that
	// works wins, and where ImportSpills looks (default SpillDirs(db)).
	SpillDirs []string
	// OnChange is called once when writes start failing and once when they
	// work again, outside the queue's locks.
	OnChange func(Health)
	// Emit derives the events of imported rows whose writer had an Emitter
	// (an Emitter cannot be spilled; the importer derives them again).
	Emit Emitter
	// Now is the clock of the condition's times (default time.Now).
	Now func() time.Time
}

// DefaultQueueMax is QueueOptions.Max when left zero.
const DefaultQueueMax = 10_000

type opKind string

const (
	opBegin       opKind = "begin"            // a row begun running
	opRecord      opKind = "record"           // a finished row (Record, or a begin finished while queued)
	opFinish      opKind = "finish"           // the verdict of a row begun earlier
	opNote        opKind = "note"             // the detail of a row still running (Note)
	opEvents      opKind = "events"           // events (and marks) raised by no row
	opDeleteBeat  opKind = "delete_heartbeat" // a clean stop's heartbeat delete
	errQueueClose        = "run_trace queue is closed"
)

// op is one waiting write. Its JSON form is a spill file's line.
type op struct {
	Kind opKind `json:"op"`
	// Prov is the provisional id a begin (or a Record) was given; a finish
	// refers to its row by Ref: a real id, or a provisional one whose begin
	// is ahead of it in the queue.
	Prov       int64           `json:"prov,omitempty"`
	Run        *Run            `json:"run,omitempty"`
	Ref        int64           `json:"ref,omitempty"`
	Outcome    Outcome         `json:"outcome,omitempty"`
	Reason     Reason          `json:"reason,omitempty"`
	Detail     json.RawMessage `json:"detail,omitempty"`
	FinishedAt time.Time       `json:"finished_at,omitzero"`
	Emits      bool            `json:"emits,omitempty"` // its writer derived events from it
	Events     []OutboxEvent   `json:"events,omitempty"`
	Marks      map[string]Mark `json:"marks,omitempty"`
	Instance   string          `json:"instance,omitempty"`
	// Boot is the boot a begin or a record was made in (Options.Boot): a
	// row that waits, or is spilled and imported after a reboot, is still
	// told to its own boot. Empty in a spill of an older svc-ctl: NULL.
	Boot string `json:"boot,omitempty"`

	emit     Emitter
	inflight bool // being written by Flush: not merged into, not dropped
}

func (o *op) row() bool { return o.Kind == opBegin || o.Kind == opRecord || o.Kind == opFinish }

// NewQueue wraps st. Call Run in a goroutine for the retries, and Close to
// stop (it spills what is still waiting).
func NewQueue(st *Store, o QueueOptions) *Queue {
	if o.Max <= 0 {
		o.Max = DefaultQueueMax
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SpillDirs == nil {
		o.SpillDirs = SpillDirs(st.Path())
	}
	q := &Queue{st: st, o: o, dir: filepath.Dir(st.Path()), begun: map[int64]*op{}, written: map[int64]int64{},
		dropped: map[int64]bool{}, kick: make(chan struct{}, 1), waits: make(chan struct{}, 1)}
	q.h = Health{Up: true, Dir: q.dir, FreeBytes: -1}
	return q
}

// Store is the store the queue writes to (for reads and maintenance).
func (q *Queue) Store() *Store { return q.st }

// Health returns the ledger's write health now.
func (q *Queue) Health() Health {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.healthLocked()
}

func (q *Queue) healthLocked() Health {
	h := q.h
	h.Pending, h.PendingEvents = 0, 0
	for _, o := range q.ops {
		if o.row() {
			h.Pending++
		} else if o.Kind == opEvents {
			h.PendingEvents++
		}
	}
	return h
}

// deferLocked reports whether a write must join the queue rather than go to
// the database: writes are failing, or others wait ahead of it.
func (q *Queue) deferLocked() bool { return !q.h.Up || len(q.ops) > 0 }

// Begin is Store.Begin. While writes fail it returns a provisional id
// (negative) that Finish accepts.
func (q *Queue) Begin(ctx context.Context, jobID string, trigger Trigger, scheduledAt, startedAt time.Time) (int64, error) {
	if err := checkStart(jobID, trigger, startedAt); err != nil {
		return 0, fmt.Errorf("begin run of %q: %w", jobID, err)
	}
	run := &Run{JobID: jobID, Trigger: trigger, ScheduledAt: utcOrZero(scheduledAt), StartedAt: startedAt.UTC(), Outcome: OutcomeRunning}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0, errors.New(errQueueClose)
	}
	if q.deferLocked() {
		id := q.beginLocked(run)
		q.mu.Unlock()
		return id, nil
	}
	q.mu.Unlock()
	id, err := q.st.Begin(ctx, jobID, trigger, scheduledAt, startedAt)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		id = q.beginLocked(run)
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return id, nil
	}
	return id, err
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
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errors.New(errQueueClose)
	}
	if id < 0 {
		done, err := q.finishProvLocked(fin)
		if done || err != nil {
			q.mu.Unlock()
			return err
		}
	}
	if q.deferLocked() {
		q.pushLocked(fin)
		q.mu.Unlock()
		return nil
	}
	q.mu.Unlock()
	err = q.st.FinishEmit(ctx, fin.Ref, outcome, reason, fin.Detail, finishedAt, emit)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		q.pushLocked(fin)
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return nil
	}
	return err
}

// finishProvLocked lands a verdict for a provisional id: merged into its
// queued begin (one finished row), aimed at the id the begin got when it was
// written late, or queued right behind a begin being written now. done is
// true when nothing more is to be done.
func (q *Queue) finishProvLocked(fin *op) (done bool, err error) {
	prov := fin.Ref
	if b := q.begun[prov]; b != nil {
		if b.inflight {
			q.pushLocked(fin) // behind its begin; Ref resolves when it is written
			return true, nil
		}
		r := *b.Run
		r.Outcome, r.Reason, r.FinishedAt, r.Detail = fin.Outcome, fin.Reason, fin.FinishedAt, fin.Detail
		r.Duration = max(0, r.FinishedAt.Sub(r.StartedAt)).Truncate(time.Millisecond)
		b.Kind, b.Run, b.emit, b.Emits = opRecord, &r, fin.emit, fin.Emits
		delete(q.begun, prov)
		return true, nil
	}
	if q.dropped[prov] {
		delete(q.dropped, prov)
		return true, nil // its row was dropped with the begin, and counted then
	}
	if real, ok := q.written[prov]; ok {
		delete(q.written, prov)
		fin.Ref = real
		return false, nil
	}
	return true, fmt.Errorf("finish run %d: %w (a provisional id this process did not hand out)", prov, ErrNotFound)
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
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errors.New(errQueueClose)
	}
	if id < 0 {
		if b := q.begun[id]; b != nil && !b.inflight {
			r := *b.Run
			r.Detail = note.Detail
			b.Run = &r
			q.mu.Unlock()
			return nil
		}
		if q.dropped[id] {
			q.mu.Unlock()
			return nil // its row was dropped with the begin, and counted then
		}
		if real, ok := q.written[id]; ok {
			note.Ref = real
		} else if q.begun[id] == nil {
			q.mu.Unlock()
			return fmt.Errorf("note run %d: %w (a provisional id this process did not hand out)", id, ErrNotFound)
		}
		// else: its begin is being written now; the note goes behind it.
	}
	if q.deferLocked() || note.Ref < 0 {
		q.pushLocked(note)
		q.mu.Unlock()
		return nil
	}
	q.mu.Unlock()
	err = q.st.Note(ctx, note.Ref, note.Detail)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		q.pushLocked(note)
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return nil
	}
	return err
}

// Record is Store.Record. While writes fail the row is queued and a
// provisional id returned.
func (q *Queue) Record(ctx context.Context, r Run) (int64, error) {
	return q.RecordEmit(ctx, r, nil)
}

// RecordEmit is Store.RecordEmit, queued while writes fail.
func (q *Queue) RecordEmit(ctx context.Context, r Run, emit Emitter) (int64, error) {
	return q.record(ctx, r, emit, false)
}

// RecordLazy is Store.RecordLazy, queued while writes fail.
func (q *Queue) RecordLazy(ctx context.Context, r Run) (int64, error) {
	return q.record(ctx, r, nil, true)
}

// RecordLazyEmit is Store.RecordLazyEmit, queued while writes fail.
func (q *Queue) RecordLazyEmit(ctx context.Context, r Run, emit Emitter) (int64, error) {
	return q.record(ctx, r, emit, true)
}

func (q *Queue) record(ctx context.Context, r Run, emit Emitter, lazy bool) (int64, error) {
	if r.FinishedAt.IsZero() {
		r.FinishedAt = r.StartedAt
	}
	if err := checkStart(r.JobID, r.Trigger, r.StartedAt); err != nil {
		return 0, fmt.Errorf("record run of %q: %w", r.JobID, err)
	}
	if err := checkVerdict(r.Outcome, r.Reason, r.FinishedAt); err != nil {
		return 0, fmt.Errorf("record run of %s: %w", r.JobID, err)
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0, errors.New(errQueueClose)
	}
	if q.deferLocked() {
		id := q.recordLocked(r, emit)
		q.mu.Unlock()
		return id, nil
	}
	q.mu.Unlock()
	write := q.st.RecordEmit
	if lazy {
		write = q.st.RecordLazyEmit
	}
	id, err := write(ctx, r, emit)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		id = q.recordLocked(r, emit)
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return id, nil
	}
	return id, err
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
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0, errors.New(errQueueClose)
	}
	if q.deferLocked() {
		q.pushLocked(&op{Kind: opEvents, Events: events, Marks: marks})
		q.mu.Unlock()
		return len(events), nil
	}
	q.mu.Unlock()
	n, err := q.st.Emit(ctx, events, marks)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		q.pushLocked(&op{Kind: opEvents, Events: events, Marks: marks})
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return len(events), nil
	}
	return n, err
}

// Beat is Store.Beat. A heartbeat that cannot be written is kept (only the
// newest) and written after what waits; while writes fail it is what the
// retry loop tries.
func (q *Queue) Beat(ctx context.Context, h Heartbeat) error {
	if h.BeatAt.IsZero() {
		h.BeatAt = q.o.Now()
	}
	q.mu.Lock()
	if q.deferLocked() {
		q.beat = &h
		q.mu.Unlock()
		return nil
	}
	q.mu.Unlock()
	err := q.st.Beat(ctx, h)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		q.beat = &h
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return nil
	}
	return err
}

// DeleteHeartbeat is Store.DeleteHeartbeat; while writes fail it is queued
// (and spilled), so the next agent deletes the row.
func (q *Queue) DeleteHeartbeat(ctx context.Context, instanceID string) error {
	q.mu.Lock()
	q.beat = nil
	if q.deferLocked() {
		q.pushLocked(&op{Kind: opDeleteBeat, Instance: instanceID})
		q.mu.Unlock()
		return nil
	}
	q.mu.Unlock()
	err := q.st.DeleteHeartbeat(ctx, instanceID)
	if cause, failed := q.st.WriteFailure(err); failed {
		q.mu.Lock()
		q.pushLocked(&op{Kind: opDeleteBeat, Instance: instanceID})
		down := q.failLocked(cause, err)
		q.mu.Unlock()
		q.changed(down)
		return nil
	}
	return err
}

// Register is Store.Register (not queued: a job whose registration cannot be
// written counts its slots from now, and registers again at the next start).
func (q *Queue) Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error) {
	return q.st.Register(ctx, jobID, spec, at)
}

// pushLocked appends o, dropping the oldest waiting row write past Max
// (never the one being written).
func (q *Queue) pushLocked(o *op) {
	q.ops = append(q.ops, o)
	if o.row() {
		q.rows++
	}
	for q.rows > q.o.Max {
		i := 0
		for i < len(q.ops) && (q.ops[i].inflight || !q.ops[i].row()) {
			i++
		}
		if i == len(q.ops) {
			return
		}
		q.dropLocked(q.ops[i])
		q.rows--
		if i == 0 {
			q.ops[0] = nil
			q.ops = q.ops[1:]
		} else {
			q.ops = append(q.ops[:i], q.ops[i+1:]...)
		}
	}
}

func (q *Queue) dropLocked(o *op) {
	q.h.Lost++
	q.h.TotalLost++
	if o.Kind == opBegin {
		delete(q.begun, o.Prov)
		q.dropped[o.Prov] = true
	}
}

// failLocked records a failed write; down is true when it starts the
// condition (the caller then calls changed outside the lock).
func (q *Queue) failLocked(cause Cause, err error) (down bool) {
	select {
	case q.waits <- struct{}{}: // Run starts retrying
	default:
	}
	down = q.h.Up
	if down {
		q.h.Up, q.h.Since, q.h.WrittenLate, q.h.Lost, q.h.RecoveredAt = false, q.o.Now().UTC(), 0, 0, time.Time{}
	}
	q.h.Cause, q.h.Error = cause, shortError(err)
	q.h.FreeBytes = freeBytes(q.dir)
	return down
}

func shortError(err error) string {
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// changed tells OnChange of a transition.
func (q *Queue) changed(transition bool) {
	if !transition || q.o.OnChange == nil {
		return
	}
	q.o.OnChange(q.Health())
}

// Run retries the database every Retry while writes wait, until ctx ends.
// While nothing waits it sleeps without a timer (an idle agent's wake-ups
// are its CPU): a failed write (failLocked) or Kick wakes it.
func (q *Queue) Run(ctx context.Context) {
	t := time.NewTimer(q.o.Retry)
	t.Stop()
	defer t.Stop()
	for {
		var retry <-chan time.Time
		if q.waiting() {
			t.Reset(q.o.Retry) // (Go 1.23+: no stale tick survives a Reset)
			retry = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-q.waits:
			continue // writes wait now: retry in Retry, not at once
		case <-retry:
		case <-q.kick:
		}
		if q.waiting() {
			q.Flush(ctx)
		}
	}
}

// waiting reports whether writes wait for the database.
func (q *Queue) waiting() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.deferLocked() || q.beat != nil
}

// Kick asks Run to try now.
func (q *Queue) Kick() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// Flush writes what waits, in order, until it is all written (true) or a
// write fails again (false).
func (q *Queue) Flush(ctx context.Context) bool {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	for {
		q.mu.Lock()
		if len(q.ops) == 0 {
			beat := q.beat
			if beat == nil {
				up := q.recoverLocked()
				q.mu.Unlock()
				q.changed(up)
				return true
			}
			q.mu.Unlock()
			err := q.st.Beat(ctx, *beat)
			q.mu.Lock()
			if err != nil && ctx.Err() != nil {
				q.mu.Unlock()
				return false
			}
			if cause, failed := q.st.WriteFailure(err); failed {
				q.failLocked(cause, err)
				q.mu.Unlock()
				return false
			}
			if q.beat == beat {
				q.beat = nil
			}
			q.mu.Unlock()
			continue
		}
		o := q.ops[0]
		o.inflight = true
		ref := o.Ref
		if ref < 0 {
			if real, ok := q.written[ref]; ok {
				ref = real
			}
		}
		q.mu.Unlock()
		id, err := q.apply(ctx, o, ref)
		q.mu.Lock()
		o.inflight = false
		if err != nil && ctx.Err() != nil {
			q.mu.Unlock()
			return false // cut short (a stop): the write stays first in line
		}
		if cause, failed := q.st.WriteFailure(err); failed {
			q.failLocked(cause, err)
			q.mu.Unlock()
			return false
		}
		q.doneLocked(o, ref, id, err)
		q.mu.Unlock()
	}
}

// apply writes one waiting op; ref is a finish's row id, resolved.
func (q *Queue) apply(ctx context.Context, o *op, ref int64) (int64, error) {
	switch o.Kind {
	case opBegin:
		instance := q.st.inst
		if o.Instance != "" {
			instance = o.Instance // imported from a spill: the instance that began it
		}
		return q.st.beginAs(ctx, instance, o.Boot, o.Run.JobID, o.Run.Trigger, o.Run.ScheduledAt, o.Run.StartedAt, o.Run.Detail)
	case opRecord:
		return q.st.recordAs(ctx, *o.Run, o.Boot, o.emit)
	case opFinish:
		if ref < 0 {
			return 0, fmt.Errorf("finish run %d: %w (its begin was never written)", ref, ErrNotFound)
		}
		return 0, q.st.FinishEmit(ctx, ref, o.Outcome, o.Reason, o.Detail, o.FinishedAt, o.emit)
	case opNote:
		if ref < 0 {
			return 0, fmt.Errorf("note run %d: %w (its begin was never written)", ref, ErrNotFound)
		}
		return 0, q.st.Note(ctx, ref, o.Detail)
	case opEvents:
		_, err := q.st.Emit(ctx, o.Events, o.Marks)
		return 0, err
	case opDeleteBeat:
		return 0, q.st.DeleteHeartbeat(ctx, o.Instance)
	}
	return 0, fmt.Errorf("unknown queued write %q", o.Kind)
}

// doneLocked removes the head op after its write (or its refusal: a verdict
// the ledger already has is kept, and Store logged it).
func (q *Queue) doneLocked(o *op, ref, id int64, err error) {
	if len(q.ops) > 0 && q.ops[0] == o {
		q.ops[0] = nil
		q.ops = q.ops[1:]
		if o.row() {
			q.rows--
		}
	}
	if len(q.ops) == 0 {
		q.ops = nil // let the backing array go
	}
	switch o.Kind {
	case opBegin:
		delete(q.begun, o.Prov)
		if err == nil {
			q.written[o.Prov] = id
			for _, n := range q.ops { // notes queued behind the begin while it was written
				if n.Kind == opNote && n.Ref == o.Prov {
					n.Ref = id
				}
			}
		} else {
			q.dropped[o.Prov] = true
		}
	case opFinish:
		if o.Ref < 0 {
			delete(q.written, o.Ref)
		}
	}
	if err != nil {
		q.st.log.Warn("runtrace.queued_write_refused", "op", o.Kind, "ref", ref, "err", err)
		return
	}
	if o.row() {
		q.h.WrittenLate++
		q.h.TotalWrittenLate++
	}
}

// recoverLocked marks the ledger up once nothing waits; true on the
// transition.
func (q *Queue) recoverLocked() bool {
	if q.h.Up {
		return false
	}
	q.h.Up, q.h.RecoveredAt = true, q.o.Now().UTC()
	q.h.FreeBytes = freeBytes(q.dir)
	return true
}

func rawDetail(d any) json.RawMessage {
	if s, ok := d.(string); ok {
		return json.RawMessage(s)
	}
	return nil
}
