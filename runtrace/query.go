package runtrace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Filter selects runs. Zero fields do not filter. Since is inclusive and
// Until exclusive, both on started_at. Limit 0 means no limit.
type Filter struct {
	JobID     string // exact
	JobPrefix string // e.g. "watchdog:"
	Since     time.Time
	Until     time.Time
	Outcome   Outcome
	Reason    Reason
	// HideRoutine leaves out the routine rows: a healthy cycle that found
	// the service healthy (ok/already-running), as the status page's
	// timeline does.
	HideRoutine bool
	// AfterID keeps only rows with a greater id (what `runs -f` has not
	// printed yet).
	AfterID int64
	Limit   int
}

// DefaultLimit is the number of rows `svc-ctl runs` shows unless told.
const DefaultLimit = 50

const runColumns = `id, job_id, trigger, scheduled_at, started_at, finished_at, outcome, reason, duration_ms, detail`

// Runs returns the runs matching f, newest first.
func (s *Store) Runs(ctx context.Context, f Filter) ([]Run, error) {
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + runColumns + ` FROM run_trace` + where + ` ORDER BY started_at DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	var out []Run
	err = s.read(ctx, "list runs", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, scanRun, q, args...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// Count returns how many runs match f (Limit is ignored).
func (s *Store) Count(ctx context.Context, f Filter) (int, error) {
	where, args, err := f.where()
	if err != nil {
		return 0, err
	}
	var n int
	err = s.read(ctx, "count runs", func(db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT count(*) FROM run_trace`+where, args...).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count runs: %w", err)
	}
	return n, nil
}

// Latest returns the newest run of jobID, or nil, nil when it has none.
func (s *Store) Latest(ctx context.Context, jobID string) (*Run, error) {
	return s.one(ctx, Filter{JobID: jobID, Limit: 1})
}

// LatestBefore returns the newest run of jobID that started before t, or
// nil, nil when there is none.
func (s *Store) LatestBefore(ctx context.Context, jobID string, t time.Time) (*Run, error) {
	return s.one(ctx, Filter{JobID: jobID, Until: t, Limit: 1})
}

func (s *Store) one(ctx context.Context, f Filter) (*Run, error) {
	if f.JobID == "" {
		return nil, errors.New("latest run: job id is empty")
	}
	runs, err := s.Runs(ctx, f)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	return &runs[0], nil
}

// ScheduledSlots returns the distinct scheduled_at values of jobID's runs,
// whatever their outcome, in [from, to], oldest first. An expected slot not
// in this list is a missing run.
func (s *Store) ScheduledSlots(ctx context.Context, jobID string, from, to time.Time) ([]time.Time, error) {
	var out []time.Time
	err := s.read(ctx, "list scheduled slots", func(db *sql.DB) (err error) {
		out, err = scanRows(ctx, db, func(sc scanner) (time.Time, error) {
			ms, err := scanValue[int64](sc)
			return time.UnixMilli(ms).UTC(), err
		}, `SELECT DISTINCT scheduled_at FROM run_trace
WHERE job_id = ? AND scheduled_at >= ? AND scheduled_at <= ? ORDER BY scheduled_at`,
			jobID, from.UnixMilli(), to.UnixMilli())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scheduled slots of %s: %w", jobID, err)
	}
	return out, nil
}

// CountSlots counts the distinct scheduled_at values of jobID in [from, to]:
// when it equals the number of slots expected there, none is missing, and the
// slots need not be read one by one.
func (s *Store) CountSlots(ctx context.Context, jobID string, from, to time.Time) (int, error) {
	var n int
	err := s.read(ctx, "count scheduled slots", func(db *sql.DB) error {
		return db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT scheduled_at) FROM run_trace
WHERE job_id = ? AND scheduled_at >= ? AND scheduled_at <= ?`, jobID, from.UnixMilli(), to.UnixMilli()).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count scheduled slots of %s: %w", jobID, err)
	}
	return n, nil
}

// where builds the WHERE clause; every value is a bound parameter.
func (f Filter) where() (string, []any, error) {
	if err := f.check(); err != nil {
		return "", nil, err
	}
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.JobID != "" {
		add("job_id = ?", f.JobID)
	}
	if f.JobPrefix != "" {
		// A range, not LIKE: no escaping of % and _, and it can use an
		// index. With a limit, "+" keeps SQLite off the job_id index: walking
		// started_at newest first stops after Limit matches, where the job_id
		// range would sort every matching row first (seconds on 2.9 M rows).
		col := "job_id"
		if f.Limit > 0 {
			col = "+job_id"
		}
		if hi, ok := prefixEnd(f.JobPrefix); ok {
			add(col+" >= ? AND "+col+" < ?", f.JobPrefix, hi)
		} else {
			add(col+" >= ?", f.JobPrefix)
		}
	}
	if !f.Since.IsZero() {
		add("started_at >= ?", f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		add("started_at < ?", f.Until.UnixMilli())
	}
	switch f.Outcome {
	case "":
	case OutcomeRunning:
		// A literal, so SQLite can use the partial index of running rows.
		add("outcome = 'running'")
	default:
		add("outcome = ?", f.Outcome)
	}
	if f.Reason != "" {
		add("reason = ?", f.Reason)
	}
	if f.HideRoutine {
		add("NOT (" + routine + ")") // word for word the partial index's condition (timeline.go)
	}
	if f.AfterID != 0 {
		add("id > ?", f.AfterID)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

// check rejects an outcome or reason outside the closed lists, so a typo in
// `runs --outcome` is an error instead of an empty answer.
func (f Filter) check() error {
	if f.Outcome != "" && f.Outcome != OutcomeRunning && Reasons[f.Outcome] == nil {
		return fmt.Errorf("%w: unknown outcome %q (want running, ok, skipped or failed)", ErrBadReason, f.Outcome)
	}
	if f.Reason == "" || KnownReason(f.Reason) {
		return nil
	}
	return fmt.Errorf("%w: unknown reason %q (docs/runbook.md lists them)", ErrBadReason, f.Reason)
}

// prefixEnd is the smallest string greater than every string with prefix p.
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

func scanRun(sc scanner) (Run, error) {
	var r Run
	var sched, started, finished, dur *int64
	var reason, detail sql.NullString
	if err := sc.Scan(&r.ID, &r.JobID, &r.Trigger, &sched, &started, &finished,
		&r.Outcome, &reason, &dur, &detail); err != nil {
		return r, err
	}
	r.ScheduledAt, r.StartedAt, r.FinishedAt = fromMS(sched), fromMS(started), fromMS(finished)
	r.Reason = Reason(reason.String)
	if dur != nil {
		r.Duration = time.Duration(*dur) * time.Millisecond
	}
	if detail.Valid && detail.String != "" {
		r.Detail = []byte(detail.String)
	}
	return r, nil
}

// RunByID returns the run with id, or nil, nil when there is none.
func (s *Store) RunByID(ctx context.Context, id int64) (*Run, error) {
	var rs []Run
	err := s.read(ctx, "read a run", func(db *sql.DB) (err error) {
		rs, err = scanRows(ctx, db, scanRun, `SELECT `+runColumns+` FROM run_trace WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("run #%d: %w", id, err)
	}
	return first(rs), nil
}

// first is the first of rs, or nil.
func first(rs []Run) *Run {
	if len(rs) == 0 {
		return nil
	}
	return &rs[0]
}
