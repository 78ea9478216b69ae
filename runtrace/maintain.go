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
// reaper may call it abandoned, whatever its job's timeout.
const MinReapAge = 60 * time.Second

// ReapPolicy says which running rows are abandoned. Timeout gives a job's
// timeout (nil or <= MinReapAge means MinReapAge); Skip exempts a job (e.g.
// one this process is running right now). A zero Now means time.Now().
type ReapPolicy struct {
	Now     time.Time
	Timeout func(jobID string) time.Duration
	Skip    func(jobID string) bool
}

type runningRow struct {
	id      int64
	jobID   string
	started int64
}

// Reap marks as failed/abandoned every running row whose started_at plus
// max(Timeout(job), MinReapAge) is before Now, and returns how many. It
// judges by started_at only: no later write can make a dead run look alive.
func (s *Store) Reap(ctx context.Context, p ReapPolicy) (int, error) {
	now := p.Now
	if now.IsZero() {
		now = time.Now()
	}
	var reaped []runningRow
	err := s.tx(ctx, "reap runs", func(tx *sql.Tx) error {
		reaped = reaped[:0]
		rows, err := runningRows(ctx, tx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			limit := p.limit(r.jobID)
			if (p.Skip != nil && p.Skip(r.jobID)) || r.started+limit.Milliseconds() >= now.UnixMilli() {
				continue
			}
			if err := abandon(ctx, tx, r, limit, now); err != nil {
				return err
			}
			reaped = append(reaped, r)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reap abandoned runs: %w", err)
	}
	for _, r := range reaped {
		s.log.Warn("runtrace.reaped", "run_id", r.id, "job", r.jobID,
			"started_at", time.UnixMilli(r.started).UTC().Format(time.RFC3339))
	}
	return len(reaped), nil
}

func (p ReapPolicy) limit(jobID string) time.Duration {
	if p.Timeout == nil {
		return MinReapAge
	}
	return max(p.Timeout(jobID), MinReapAge)
}

func runningRows(ctx context.Context, tx *sql.Tx) ([]runningRow, error) {
	rows, err := tx.QueryContext(ctx,
		`SELECT id, job_id, started_at FROM run_trace WHERE outcome = 'running' ORDER BY started_at`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runningRow
	for rows.Next() {
		var r runningRow
		if err := rows.Scan(&r.id, &r.jobID, &r.started); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func abandon(ctx context.Context, tx *sql.Tx, r runningRow, limit time.Duration, now time.Time) error {
	detail, err := json.Marshal(map[string]any{
		"why":      "no finish recorded within the job's timeout: the process running it died or hung",
		"limit_ms": limit.Milliseconds(),
	})
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE run_trace
SET outcome = 'failed', reason = ?, finished_at = ?, duration_ms = MAX(0, ? - started_at), detail = ?
WHERE id = ? AND outcome = 'running'`,
		ReasonAbandoned, now.UnixMilli(), now.UnixMilli(), string(detail), r.id)
	return err
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
		rows, err := db.QueryContext(ctx, "PRAGMA quick_check(10)")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				return err
			}
			if p != "ok" {
				problems = append(problems, p)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) > 0 {
		return damaged(s.path, "quick_check: "+strings.Join(problems, "; "), nil)
	}
	return nil
}
