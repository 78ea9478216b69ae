package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The outbox holds the events svc-ctl owes people (package notify says what
// they mean and moves their deliveries from state to state, notify/
// deliveries.go; this package only keeps them). An event is written in the
// same transaction as the run row that raised it (the Emitter, which notify
// hands in, derives it there), so a crash can lose neither without the
// other; it gets one delivery row per channel that wants it. A sender
// claims a delivery with a lease before trying it, so one delivery never
// has two attempts in flight, and a sender that dies leaves a claim that
// expires. The delivery states are the column's values (the schema checks
// them); which step leads where is notify's.

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
	DeliveryHeld      = "held"
)

// OutboxEvent is one event to queue. ID is the event's stable id (the
// receiver's Idempotency-Key); an event whose id is already queued is not
// queued again. Payload is the event as JSON, exactly as channels get it.
type OutboxEvent struct {
	ID        string
	RunID     int64 // the run row that raised it; 0 for none (a missing slot)
	Kind      string
	Subject   string // watchdog:NAME | job:NAME | agent
	CreatedAt time.Time
	Payload   []byte
	Channels  []string // one delivery per channel; none: the event is kept for the record only
}

// Mark is a small named value kept with the outbox: what people were last
// told about a subject ("down", "given-up"), the job.missing watermark.
type Mark struct {
	Value string
	At    time.Time
}

// Emitter derives, inside the transaction that writes a run's verdict, the
// events that verdict raises. It gets the run as it will be committed and
// the mark of the run's subject (zero when none) and returns the events to
// queue and the subject's new mark (unchanged: not written). It must be a
// pure function: a transaction retried after a busy error calls it again.
type Emitter func(r Run, mark Mark) ([]OutboxEvent, Mark)

// SubjectMarkKey is the notify_marks key of a subject's alert state.
func SubjectMarkKey(subject string) string { return "subject:" + subject }

// FinishEmit is Finish, and queues the events emit derives from the verdict
// in the same transaction: both commit or neither does. A nil emit is Finish.
func (s *Store) FinishEmit(ctx context.Context, id int64, outcome Outcome, reason Reason, detail any, finishedAt time.Time, emit Emitter) error {
	if err := checkVerdict(outcome, reason, finishedAt); err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	d, err := encodeDetail(detail)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	var kept Run
	err = s.tx(ctx, "finish run", func(tx *sql.Tx) error {
		r := Run{ID: id, Outcome: outcome, Reason: reason, FinishedAt: finishedAt.UTC()}
		var sched *int64
		var started int64
		err := tx.QueryRowContext(ctx, `UPDATE run_trace
SET outcome = ?, reason = ?, detail = ?, finished_at = ?, duration_ms = MAX(0, ? - started_at)
WHERE id = ? AND outcome = 'running'
RETURNING job_id, trigger, scheduled_at, started_at`,
			outcome, reason, d, finishedAt.UnixMilli(), finishedAt.UnixMilli(), id).
			Scan(&r.JobID, &r.Trigger, &sched, &started)
		if errors.Is(err, sql.ErrNoRows) {
			kept, err = finishedRun(ctx, tx, id)
			return err
		}
		if err != nil {
			return err
		}
		if emit == nil {
			return nil
		}
		r.ScheduledAt, r.StartedAt = fromMS(sched), time.UnixMilli(started).UTC()
		r.Duration = max(0, r.FinishedAt.Sub(r.StartedAt)).Truncate(time.Millisecond)
		r.Detail = detailBytes(d)
		return emitInTx(ctx, tx, r, emit)
	})
	if errors.Is(err, ErrAlreadyFinished) {
		s.log.Warn("runtrace.finish_late", "run_id", id, "job", kept.JobID,
			"kept_outcome", kept.Outcome, "kept_reason", kept.Reason, "outcome", outcome, "reason", reason)
		return fmt.Errorf("finish run %d of %s as %s/%s: %w (kept %s/%s)",
			id, kept.JobID, outcome, reason, err, kept.Outcome, kept.Reason)
	}
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	return nil
}

// RecordEmit is Record, and queues the events emit derives from the run in
// the same transaction. A nil emit is Record.
func (s *Store) RecordEmit(ctx context.Context, r Run, emit Emitter) (int64, error) {
	return s.record(ctx, r, emit, s.tx)
}

// RecordLazy is Record without waiting for the disk: the commit is in the
// WAL (and the OS's page cache) when it returns, and reaches the disk with
// the next durable commit of this file or its next checkpoint, whichever
// comes first. A crash of svc-ctl loses nothing; a power loss or an OS
// crash before then loses this row and any other lazy row since. It is for
// rows whose loss nobody needs to know about: a healthy cycle that changed
// nothing, where the next cycle is the same evidence again. Anything that
// acts or that someone must be told about is written durably.
func (s *Store) RecordLazy(ctx context.Context, r Run) (int64, error) {
	return s.record(ctx, r, nil, s.lazyTx)
}

// RecordLazyEmit is RecordLazy with emit, as RecordEmit: when the verdict
// raises no event and leaves its subject's mark as it was, the commit is
// lazy; when it would raise or change anything, the whole record is done
// durably instead (somebody must be told: that must survive a power loss).
func (s *Store) RecordLazyEmit(ctx context.Context, r Run, emit Emitter) (int64, error) {
	if emit == nil {
		return s.RecordLazy(ctx, r)
	}
	quiet := func(ctx context.Context, op string, fn func(*sql.Tx) error) error {
		return s.lazyTx(ctx, op, fn)
	}
	id, err := s.recordWith(ctx, r, s.boot, emit, quiet, true)
	if errors.Is(err, errNeedsSync) {
		return s.RecordEmit(ctx, r, emit)
	}
	return id, err
}

// errNeedsSync rolls back a lazy record whose verdict must be durable.
var errNeedsSync = errors.New("the verdict raises events: record it durably")

func (s *Store) record(ctx context.Context, r Run, emit Emitter, tx func(context.Context, string, func(*sql.Tx) error) error) (int64, error) {
	return s.recordWith(ctx, r, s.boot, emit, tx, false)
}

// recordAs is RecordEmit for a row written in boot (a queued or spilled
// row keeps the boot it was recorded in).
func (s *Store) recordAs(ctx context.Context, r Run, boot string, emit Emitter) (int64, error) {
	return s.recordWith(ctx, r, boot, emit, s.tx, false)
}

// checkRecord checks a finished row before it is written or queued; one
// with no finish time ended as it started.
func checkRecord(r *Run) error {
	if r.FinishedAt.IsZero() {
		r.FinishedAt = r.StartedAt
	}
	if err := checkStart(r.JobID, r.Trigger, r.StartedAt); err != nil {
		return fmt.Errorf("record run of %q: %w", r.JobID, err)
	}
	if err := checkVerdict(r.Outcome, r.Reason, r.FinishedAt); err != nil {
		return fmt.Errorf("record run of %s: %w", r.JobID, err)
	}
	return nil
}

// recordWith is record in boot; with onlyIfQuiet, a verdict that emit says
// raises events or moves its mark fails with errNeedsSync and writes nothing.
func (s *Store) recordWith(ctx context.Context, r Run, boot string, emit Emitter, tx func(context.Context, string, func(*sql.Tx) error) error, onlyIfQuiet bool) (int64, error) {
	if err := checkRecord(&r); err != nil {
		return 0, err
	}
	var detail any
	if len(r.Detail) > 0 {
		detail = r.Detail
	}
	d, err := encodeDetail(detail)
	if err != nil {
		return 0, fmt.Errorf("record run of %s: %w", r.JobID, err)
	}
	dur := max(0, r.FinishedAt.UnixMilli()-r.StartedAt.UnixMilli())
	var id int64
	err = tx(ctx, "record run", func(tx *sql.Tx) error {
		res, err := execIn(ctx, tx, s.stmts.record, recordSQL,
			r.JobID, r.Trigger, toMS(r.ScheduledAt), r.StartedAt.UnixMilli(), r.FinishedAt.UnixMilli(),
			r.Outcome, r.Reason, dur, d, nullString(boot))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil || emit == nil {
			return err
		}
		run := r
		run.ID, run.Duration, run.Detail = id, time.Duration(dur)*time.Millisecond, detailBytes(d)
		run.StartedAt, run.FinishedAt, run.ScheduledAt = r.StartedAt.UTC(), r.FinishedAt.UTC(), utcOrZero(r.ScheduledAt)
		if onlyIfQuiet {
			return quietInTx(ctx, tx, run, emit)
		}
		return emitInTx(ctx, tx, run, emit)
	})
	if err != nil {
		return 0, fmt.Errorf("record run of %s: %w", r.JobID, err)
	}
	return id, nil
}

// Emit queues events that no run row raised (a missing slot, an agent
// event) and sets marks (a watermark) in one transaction. An event whose id
// is already queued is skipped, so raising the same missing slot twice
// queues it once. It returns how many events were new.
func (s *Store) Emit(ctx context.Context, events []OutboxEvent, marks map[string]Mark) (int, error) {
	var n int
	err := s.tx(ctx, "queue events", func(tx *sql.Tx) error {
		n = 0
		for _, e := range events {
			added, err := queue(ctx, tx, e)
			if err != nil {
				return err
			}
			if added {
				n++
			}
		}
		for k, m := range marks {
			if err := setMark(ctx, tx, k, m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("queue %d events: %w", len(events), err)
	}
	return n, nil
}

func emitInTx(ctx context.Context, tx *sql.Tx, r Run, emit Emitter) error {
	key := SubjectMarkKey(r.JobID)
	mark, err := readMark(ctx, tx, key)
	if err != nil {
		return err
	}
	events, next := emit(r, mark)
	for _, e := range events {
		if e.RunID == 0 {
			e.RunID = r.ID
		}
		if _, err := queue(ctx, tx, e); err != nil {
			return err
		}
	}
	if next != mark {
		return setMark(ctx, tx, key, next)
	}
	return nil
}

// quietInTx fails with errNeedsSync when emit would queue an event or move
// the subject's mark for r.
func quietInTx(ctx context.Context, tx *sql.Tx, r Run, emit Emitter) error {
	mark, err := readMark(ctx, tx, SubjectMarkKey(r.JobID))
	if err != nil {
		return err
	}
	if events, next := emit(r, mark); len(events) > 0 || next != mark {
		return errNeedsSync
	}
	return nil
}

// queue inserts one event and its deliveries; false when the id is known.
func queue(ctx context.Context, tx *sql.Tx, e OutboxEvent) (bool, error) {
	if e.ID == "" || e.Kind == "" || e.Subject == "" || e.CreatedAt.IsZero() || len(e.Payload) == 0 {
		return false, fmt.Errorf("event %q of %s: id, kind, subject, time and payload are required", e.ID, e.Subject)
	}
	var runID any
	if e.RunID != 0 {
		runID = e.RunID
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO outbox (id, run_id, kind, subject, created_at, event)
VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		e.ID, runID, e.Kind, e.Subject, e.CreatedAt.UnixMilli(), string(e.Payload))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	for _, ch := range e.Channels {
		if _, err := tx.ExecContext(ctx, `INSERT INTO deliveries (event_id, channel, state, next_at)
VALUES (?, ?, 'pending', ?)`, e.ID, ch, e.CreatedAt.UnixMilli()); err != nil {
			return false, err
		}
	}
	return true, nil
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readMark(ctx context.Context, q rowQuerier, key string) (Mark, error) {
	var m Mark
	var at int64
	err := q.QueryRowContext(ctx, `SELECT value, at FROM notify_marks WHERE key = ?`, key).Scan(&m.Value, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return Mark{}, nil
	}
	if err != nil {
		return Mark{}, err
	}
	m.At = time.UnixMilli(at).UTC()
	return m, nil
}

func setMark(ctx context.Context, tx *sql.Tx, key string, m Mark) error {
	if m == (Mark{}) {
		_, err := tx.ExecContext(ctx, `DELETE FROM notify_marks WHERE key = ?`, key)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO notify_marks (key, value, at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, at = excluded.at`, key, m.Value, m.At.UnixMilli())
	return err
}

// GetMark reads a mark; the zero Mark when it is not set.
func (s *Store) GetMark(ctx context.Context, key string) (Mark, error) {
	var m Mark
	err := s.read(ctx, "read mark", func(db *sql.DB) error {
		var err error
		m, err = readMark(ctx, db, key)
		return err
	})
	if err != nil {
		return Mark{}, fmt.Errorf("read mark %s: %w", key, err)
	}
	return m, nil
}

func detailBytes(d any) []byte {
	if s, ok := d.(string); ok {
		return []byte(s)
	}
	return nil
}

func utcOrZero(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
