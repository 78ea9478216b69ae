// Package ledgergen fills a run_trace database with synthetic job runs for
// benchmarks: one row per job per schedule slot, inserted with plain SQL in
// big transactions (the store itself commits one run at a time, which would
// take hours at this size). The rows look like bench/runtrace's: 97% ok,
// 2% failed/exit-nonzero, 1% skipped/overlap, a short JSON detail.
//
// It must never be pointed at a real ledger: it writes straight into the
// table, outside the store's rules.
package ledgergen

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"svcctl/runtrace"

	_ "modernc.org/sqlite" // the "sqlite" driver, as runtrace uses it
)

// Spec says what to generate: for every slot in Slots, one row per job.
type Spec struct {
	Jobs  []string    // job ids, e.g. "job:j00"
	Slots []time.Time // the scheduled_at of every run, oldest first
	Batch int         // rows per transaction; default 100,000
}

// Fill creates the schema through runtrace.Open (so it is exactly the
// store's), then inserts len(Jobs) x len(Slots) rows. It returns the rows
// written.
func Fill(ctx context.Context, path string, sp Spec) (int, error) {
	st, err := runtrace.Open(path, runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, err
	}
	if err := st.Close(); err != nil {
		return 0, err
	}
	db, err := sql.Open("sqlite", path+"?_txlock=immediate&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if sp.Batch <= 0 {
		sp.Batch = 100_000
	}
	total := len(sp.Jobs) * len(sp.Slots)
	for done := 0; done < total; done += sp.Batch {
		if err := insertBatch(ctx, db, sp, done, min(sp.Batch, total-done)); err != nil {
			return done, err
		}
	}
	return total, nil
}

// insertBatch writes rows [from, from+n) in one transaction; row k is job
// k % len(Jobs) at slot k / len(Jobs), so runs are interleaved in time
// order as an agent writes them.
func insertBatch(ctx context.Context, db *sql.DB, sp Spec, from, n int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO run_trace
(job_id, trigger, scheduled_at, started_at, finished_at, outcome, reason, duration_ms, detail)
VALUES (?, 'schedule', ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	defer ins.Close()
	jobs := len(sp.Jobs)
	for k := from; k < from+n; k++ {
		slot := sp.Slots[k/jobs].UnixMilli()
		started := slot + rand.Int64N(2000)
		dur := 200 + rand.Int64N(5000)
		outcome, reason, detail := verdict(k)
		if _, err := ins.ExecContext(ctx, sp.Jobs[k%jobs], slot, started, started+dur, outcome, reason, dur, detail); err != nil {
			return fmt.Errorf("insert row %d: %w", k, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// verdict: 97% ok, 2% failed, 1% skipped, spread over all jobs.
func verdict(k int) (outcome runtrace.Outcome, reason runtrace.Reason, detail string) {
	switch k % 100 {
	case 13, 57:
		return runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, fmt.Sprintf(`{"exit_code":1,"pid":%d}`, 1000+k%30000)
	case 71:
		return runtrace.OutcomeSkipped, runtrace.ReasonOverlap, `{"running_id":1}`
	}
	return runtrace.OutcomeOK, runtrace.ReasonCompleted, fmt.Sprintf(`{"exit_code":0,"pid":%d}`, 1000+k%30000)
}

// Minutes returns every whole minute in [from, to].
func Minutes(from, to time.Time) []time.Time {
	var out []time.Time
	for t := from.Truncate(time.Minute); !t.After(to); t = t.Add(time.Minute) {
		if !t.Before(from) {
			out = append(out, t)
		}
	}
	return out
}
