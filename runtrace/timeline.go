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
// within a count of runs per time bucket: at a 1 s interval a day is 86 400
// such rows per service, which no page should receive one by one, while a
// restart, a failure or a job run must never be folded into a count.

// routine is the SQL condition of a routine run. A literal, so both queries
// agree on it and SQLite can plan it.
const routine = `outcome = 'ok' AND reason = 'already-running'`

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
	err := s.read(ctx, "list notable runs", func(db *sql.DB) error {
		out = out[:0]
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRun(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("notable runs of %s: %w", jobID, err)
	}
	return out, nil
}

// Density counts the runs of jobID (all of them, routine or not) that
// started in [since, until), per bucket of the given width counted from
// since: the result maps a bucket's index to its count, and a bucket with
// none is absent. It reads only the (job_id, started_at) index: a day of 1 s
// cycles is counted in milliseconds, where telling routine rows apart would
// read every row (docs/benchmarks.md).
func (s *Store) Density(ctx context.Context, jobID string, since, until time.Time, bucket time.Duration) (map[int]int, error) {
	w := bucket.Milliseconds()
	if w <= 0 {
		return nil, fmt.Errorf("density of %s: bucket width %s: want at least 1ms", jobID, bucket)
	}
	out := map[int]int{}
	err := s.read(ctx, "count runs per bucket", func(db *sql.DB) error {
		clear(out)
		rows, err := db.QueryContext(ctx, `SELECT (started_at - ?) / ?, COUNT(*) FROM run_trace
WHERE job_id = ? AND started_at >= ? AND started_at < ? GROUP BY 1`,
			since.UnixMilli(), w, jobID, since.UnixMilli(), until.UnixMilli())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b, n int
			if err := rows.Scan(&b, &n); err != nil {
				return err
			}
			out[b] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("density of %s: %w", jobID, err)
	}
	return out, nil
}
