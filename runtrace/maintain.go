package runtrace

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MinReapAge is the least time a run must have been running before the
// reaper may call it abandoned by its timeout, whatever its job's timeout. A
// run whose writer is provably gone needs no such wait.
const MinReapAge = 60 * time.Second

// ReapBatch bounds the rows one reaping transaction reads and finishes, so
// the write lock is held briefly even after a crash left thousands running.
const ReapBatch = 500

// ReapPolicy says which running rows are abandoned. A zero Now means
// time.Now().
type ReapPolicy struct {
	Now time.Time
	// Self is the instance reaping (its own runs are never "gone").
	Self string
	// Stale is how old a heartbeat may be before its instance counts as
	// gone (3 heartbeats); zero: only a deleted heartbeat proves it.
	Stale time.Duration
	// Timeout gives a job's timeout (nil or <= MinReapAge means MinReapAge).
	Timeout func(jobID string) time.Duration
	// Skip exempts a job from the timeout rule (one this process is running
	// right now, a paused one). A gone writer is gone whatever Skip says.
	Skip func(jobID string) bool
	// Batch bounds each transaction (default ReapBatch).
	Batch int
	// Orphan, when set, is called for a row whose writer is gone and whose
	// running detail (Note) names what the run started, before the row is
	// finished, outside any transaction: it may stop what the run left
	// running (a job's process tree, proven by its identity) and returns
	// what it found and did to the row's detail, why (it may add keys and
	// extend why["why"]).
	Orphan func(jobID string, detail json.RawMessage, why map[string]any)
}

type runningRow struct {
	id       int64
	jobID    string
	started  int64
	instance sql.NullString
	beatAt   sql.NullInt64  // the writer's last heartbeat; NULL when deleted
	detail   sql.NullString // what the run noted while running (Note)
}

// Reap finishes as failed/abandoned every running row that cannot finish any
// more, and returns how many:
//   - at once, a row whose writer instance is gone: it has no heartbeat (an
//     agent deletes its own when it stops; the next agent, holding the lock,
//     deletes those of agents that were killed or crashed; the reaper prunes
//     stale ones) or its heartbeat is older than Stale. When such a row's
//     running detail names what the run started and p.Orphan is set, Orphan
//     sees it first (it stops a job's orphaned process) and its words join
//     the row's detail;
//   - any other row once started_at plus max(Timeout(job), MinReapAge) is
//     past. It judges by started_at only: no later write can make a dead
//     run look alive.
//
// It works in transactions of at most Batch rows, in id order.
func (s *Store) Reap(ctx context.Context, p ReapPolicy) (int, error) {
	if p.Now.IsZero() {
		p.Now = time.Now()
	}
	if p.Batch <= 0 {
		p.Batch = ReapBatch
	}
	total := 0
	var after int64
	for {
		var reaped, orphans []abandoned
		var last int64
		var full bool
		err := s.tx(ctx, "reap runs", func(tx *sql.Tx) error {
			reaped, orphans = reaped[:0], orphans[:0]
			rows, err := runningRows(ctx, tx, after, p.Batch)
			if err != nil {
				return err
			}
			full = len(rows) == p.Batch
			for _, r := range rows {
				last = r.id
				why, ok := p.verdict(r)
				if !ok {
					continue
				}
				if p.Orphan != nil && r.detail.Valid && r.detail.String != "" && why["instance"] != nil {
					orphans = append(orphans, abandoned{r, why}) // judged after this transaction
					continue
				}
				if err := abandon(ctx, tx, r.id, why, p.Now); err != nil {
					return err
				}
				reaped = append(reaped, abandoned{r, why})
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("reap abandoned runs: %w", err)
		}
		// A gone writer's run that noted what it started: what it left running
		// is stopped first (seconds, perhaps: never inside a transaction), then
		// the row is finished saying so.
		for _, o := range orphans {
			p.Orphan(o.row.jobID, json.RawMessage(o.row.detail.String), o.why)
			var n int64
			err := s.tx(ctx, "reap runs", func(tx *sql.Tx) error {
				res, err := abandonRes(ctx, tx, o.row.id, o.why, p.Now)
				if err == nil {
					n, err = res.RowsAffected()
				}
				return err
			})
			if err != nil {
				return total, fmt.Errorf("reap abandoned runs: %w", err)
			}
			if n == 1 {
				reaped = append(reaped, o)
			}
		}
		for _, a := range reaped {
			s.log.Warn("runtrace.reaped", "run_id", a.row.id, "job", a.row.jobID,
				"started_at", time.UnixMilli(a.row.started).UTC().Format(time.RFC3339), "why", a.why["why"])
		}
		total += len(reaped)
		if !full {
			return total, nil
		}
		after = last
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("reap abandoned runs: %w", err)
		}
	}
}

type abandoned struct {
	row runningRow
	why map[string]any
}

// verdict says whether r is abandoned, and why.
func (p ReapPolicy) verdict(r runningRow) (map[string]any, bool) {
	if inst := r.instance.String; r.instance.Valid && inst != "" && inst != p.Self {
		switch {
		case !r.beatAt.Valid:
			return map[string]any{"why": "the agent that ran it is gone (killed or crashed, or it stopped before finishing the run): " +
				"it has no heartbeat any more (removed at its stop, or by the next agent once the agent lock was free)",
				"instance": inst}, true
		case p.Stale > 0 && r.beatAt.Int64 < p.Now.Add(-p.Stale).UnixMilli():
			return map[string]any{"why": "the agent that ran it is gone (killed, crashed or hung): its last heartbeat is older than " + p.Stale.String(),
				"instance": inst, "last_beat": time.UnixMilli(r.beatAt.Int64).UTC().Format(time.RFC3339)}, true
		}
	}
	if p.Skip != nil && p.Skip(r.jobID) {
		return nil, false
	}
	limit := p.limit(r.jobID)
	if r.started+limit.Milliseconds() >= p.Now.UnixMilli() {
		return nil, false
	}
	return map[string]any{"why": "no finish recorded within the job's timeout: the process running it died or hung",
		"limit_ms": limit.Milliseconds()}, true
}

func (p ReapPolicy) limit(jobID string) time.Duration {
	if p.Timeout == nil {
		return MinReapAge
	}
	return max(p.Timeout(jobID), MinReapAge)
}

// runningRows reads up to n running rows after id after, with their
// writer's last heartbeat.
func runningRows(ctx context.Context, tx *sql.Tx, after int64, n int) ([]runningRow, error) {
	return scanRows(ctx, tx, func(sc scanner) (runningRow, error) {
		var r runningRow
		return r, sc.Scan(&r.id, &r.jobID, &r.started, &r.instance, &r.beatAt, &r.detail)
	}, `SELECT r.id, r.job_id, r.started_at, r.instance_id, h.beat_at, r.detail
FROM run_trace r LEFT JOIN heartbeats h ON h.instance_id = r.instance_id
WHERE r.outcome = 'running' AND r.id > ? ORDER BY r.id LIMIT ?`, after, n)
}

func abandon(ctx context.Context, tx *sql.Tx, id int64, why map[string]any, now time.Time) error {
	_, err := abandonRes(ctx, tx, id, why, now)
	return err
}

func abandonRes(ctx context.Context, tx *sql.Tx, id int64, why map[string]any, now time.Time) (sql.Result, error) {
	detail, err := encodeDetail(why)
	if err != nil {
		return nil, err
	}
	return tx.ExecContext(ctx, `UPDATE run_trace
SET outcome = 'failed', reason = ?, finished_at = ?, duration_ms = MAX(0, ? - started_at), detail = ?
WHERE id = ? AND outcome = 'running'`,
		ReasonAbandoned, now.UnixMilli(), now.UnixMilli(), detail, id)
}

// PruneBatch bounds the rows one DELETE removes, so the write lock is held
// briefly and other processes' writes go in between batches.
const PruneBatch = 5000

// pruneHook, when set by a test, sees the row count of every DELETE.
var pruneHook func(deleted int64)

// Prune deletes the runs that started before before, at most PruneBatch per
// statement and transaction, and returns how many it deleted.
func (s *Store) Prune(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		var n int64
		err := s.tx(ctx, "prune runs", func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM run_trace WHERE id IN
(SELECT id FROM run_trace WHERE started_at < ? LIMIT ?)`, before.UnixMilli(), PruneBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, fmt.Errorf("prune runs before %s: %w", before.UTC().Format(time.RFC3339), err)
		}
		if pruneHook != nil {
			pruneHook(n)
		}
		total += int(n)
		if n < PruneBatch {
			break
		}
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("prune runs: %w", err)
		}
	}
	if total > 0 {
		s.log.Info("runtrace.pruned", "rows", total, "before", before.UTC().Format(time.RFC3339))
	}
	return total, nil
}

// IntegrityCheck runs PRAGMA quick_check and returns an ErrDamaged error
// listing the first problems it reports.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	var problems []string
	err := s.read(ctx, "integrity check", func(db *sql.DB) error {
		problems = problems[:0]
		lines, err := scanRows(ctx, db, scanValue[string], "PRAGMA quick_check(10)")
		for _, p := range lines {
			if p != "ok" {
				problems = append(problems, p)
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) > 0 {
		return damaged(s.path, "quick_check: "+strings.Join(problems, "; "), nil)
	}
	return nil
}
