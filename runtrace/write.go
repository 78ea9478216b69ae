package runtrace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Begin records that a run of jobID starts now ("running") and returns its
// id for Finish. scheduledAt is the slot the run serves (zero for none).
// Write it before the work starts: a run whose process dies stays visible.
func (s *Store) Begin(ctx context.Context, jobID string, trigger Trigger, scheduledAt, startedAt time.Time) (int64, error) {
	return s.beginAs(ctx, s.inst, s.boot, jobID, trigger, scheduledAt, startedAt, nil)
}

// beginAs is Begin on behalf of writer instance in boot (a spilled row keeps
// the instance that began it, so the reaper judges it by that instance, and
// the boot it began in, whichever boot imports it).
// detail is the running row's detail (Note's, when the begin waited in a
// queue while it was noted); nil for none.
func (s *Store) beginAs(ctx context.Context, instance, boot, jobID string, trigger Trigger, scheduledAt, startedAt time.Time, detail json.RawMessage) (int64, error) {
	if err := checkStart(jobID, trigger, startedAt); err != nil {
		return 0, fmt.Errorf("begin run of %q: %w", jobID, err)
	}
	d, err := encodeDetail(detail)
	if err != nil {
		return 0, fmt.Errorf("begin run of %q: %w", jobID, err)
	}
	var id int64
	err = s.tx(ctx, "begin run", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO run_trace (job_id, trigger, scheduled_at, started_at, outcome, instance_id, boot_id, detail) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)`,
			jobID, trigger, toMS(scheduledAt), startedAt.UnixMilli(), nullString(instance), nullString(boot), d)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("begin run of %s: %w", jobID, err)
	}
	return id, nil
}

// Note sets the detail of run id while it is still running: what the run
// started (a job's process: its pid and start stamp), so that the reaper,
// when the agent that ran it is gone, can find and stop what it left
// running. Finish replaces it with the verdict's detail. A run that is no
// longer running gives ErrAlreadyFinished (its verdict is kept), an unknown
// id ErrNotFound.
func (s *Store) Note(ctx context.Context, id int64, detail any) error {
	d, err := encodeDetail(detail)
	if err != nil {
		return fmt.Errorf("note run %d: %w", id, err)
	}
	err = s.tx(ctx, "note run", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE run_trace SET detail = ? WHERE id = ? AND outcome = 'running'`, d, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		_, err = finishedRun(ctx, tx, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("note run %d: %w", id, err)
	}
	return nil
}

// Finish records the verdict of run id once. A run that is no longer
// "running" (reaped, interrupted, finished twice) keeps its verdict and
// Finish returns ErrAlreadyFinished; an unknown id returns ErrNotFound.
func (s *Store) Finish(ctx context.Context, id int64, outcome Outcome, reason Reason, detail any, finishedAt time.Time) error {
	return s.FinishEmit(ctx, id, outcome, reason, detail, finishedAt, nil)
}

// finishedRun explains why an UPDATE matched nothing.
func finishedRun(ctx context.Context, tx *sql.Tx, id int64) (Run, error) {
	var r Run
	var reason sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT job_id, outcome, reason FROM run_trace WHERE id = ?`, id).
		Scan(&r.JobID, &r.Outcome, &reason)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	if err != nil {
		return r, err
	}
	r.Reason = Reason(reason.String)
	return r, ErrAlreadyFinished
}

// Record writes a run that starts and ends at once (e.g. skipped/overlap) as
// one finished row in one statement. r.ID is ignored; the new id is returned.
// A zero r.FinishedAt means r.StartedAt.
func (s *Store) Record(ctx context.Context, r Run) (int64, error) {
	return s.RecordEmit(ctx, r, nil)
}

func checkStart(jobID string, trigger Trigger, startedAt time.Time) error {
	switch {
	case jobID == "":
		return errors.New("job id is empty")
	case !ValidTrigger(trigger):
		return fmt.Errorf("%w %q (want one of %v)", ErrBadTrigger, trigger, Triggers)
	case startedAt.IsZero():
		return errors.New("start time is zero")
	}
	return nil
}

func checkVerdict(outcome Outcome, reason Reason, finishedAt time.Time) error {
	switch {
	case Reasons[outcome] == nil:
		return fmt.Errorf("%w: outcome %q (a verdict is ok, skipped or failed)", ErrBadReason, outcome)
	case !ValidReason(outcome, reason):
		return fmt.Errorf("%w: %q/%q (%s takes one of %v)", ErrBadReason, outcome, reason, outcome, Reasons[outcome])
	case finishedAt.IsZero():
		return errors.New("finish time is zero")
	}
	return nil
}
