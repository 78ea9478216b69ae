package runtrace

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// What the status page draws (ui). A strip per service or job shows every
// run that says something as a mark of its own, and the routine ones — a
// healthy cycle that found the service healthy (ok/already-running) — only
// as "something ran in this bucket of time": at a 1 s interval a day is
// 86 400 such rows per service, which no page should receive one by one,
// while a restart, a failure or a job run must never be folded away.

// routine is the SQL condition of a routine run. A literal: the index
// run_trace_notable (schema v5) is partial on exactly NOT (routine), and
// SQLite uses it only for a query that states that condition.
const routine = `outcome = 'ok' AND reason = 'already-running'`

// Routine reports whether r is a routine run: a cycle that found its
// service healthy (the Go form of routine).
func Routine(r Run) bool { return r.Outcome == OutcomeOK && r.Reason == ReasonAlreadyRunning }

// Notable returns the runs of jobID that started in [since, until) and are
// not routine, newest first, at most limit (0: no limit).
func (s *Store) Notable(ctx context.Context, jobID string, since, until time.Time, limit int) ([]Run, error) {
	q := `SELECT ` + runColumns + ` FROM run_trace
WHERE job_id = ? AND started_at >= ? AND started_at < ? AND NOT (` + routine + `)
ORDER BY started_at DESC, id DESC`
	args := []any{jobID, since.UnixMilli(), until.UnixMilli()}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var out []Run
	err := s.read(ctx, "list notable runs", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, scanRun, q, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("notable runs of %s: %w", jobID, err)
	}
	return out, nil
}

// Ran reports, for each of n buckets of the given width counted from
// since, whether any run of jobID (routine or not) started in it: the
// strip's "cycles ran" bar, whose gaps are times nothing ran. One index
// seek per bucket (a recursive list of buckets and an EXISTS on the
// (job_id, started_at) index), so its cost does not grow with the rows: a
// week of 1 s cycles is 288 seeks, where counting them read 600 000 index
// entries (docs/benchmarks.md).
func (s *Store) Ran(ctx context.Context, jobID string, since time.Time, bucket time.Duration, n int) ([]bool, error) {
	w := bucket.Milliseconds()
	if w <= 0 || n <= 0 {
		return nil, fmt.Errorf("buckets of %s: %d of %s: want at least one of at least 1ms", jobID, n, bucket)
	}
	out := make([]bool, n)
	err := s.read(ctx, "find buckets with runs", func(db *sql.DB) error {
		clear(out)
		ran, err := scanRows(ctx, db, scanValue[int], `WITH RECURSIVE b(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM b WHERE i + 1 < ?1)
SELECT i FROM b WHERE EXISTS (SELECT 1 FROM run_trace
  WHERE job_id = ?2 AND started_at >= ?3 + i * ?4 AND started_at < ?3 + (i + 1) * ?4)`,
			n, jobID, since.UnixMilli(), w)
		for _, i := range ran {
			if i >= 0 && i < n {
				out[i] = true
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("buckets of %s: %w", jobID, err)
	}
	return out, nil
}

// FirstRunSince is when the first run that started at or after since
// started (zero when none did): the status page's timeline opens on the
// history there is.
func (s *Store) FirstRunSince(ctx context.Context, since time.Time) (time.Time, error) {
	var ms sql.NullInt64
	err := s.read(ctx, "find the first run", func(db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT min(started_at) FROM run_trace WHERE started_at >= ?`, since.UnixMilli()).Scan(&ms)
	})
	if err != nil || !ms.Valid {
		return time.Time{}, err
	}
	return time.UnixMilli(ms.Int64).UTC(), nil
}
