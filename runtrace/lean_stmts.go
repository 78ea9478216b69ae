package runtrace

import (
	"context"
	"database/sql"
)

// An idle agent writes one row a healthy cycle (RecordLazy).
// modernc.org/sqlite parses a statement anew at every ExecContext; a
// statement prepared once keeps its compiled program, and database/sql hands
// a transaction the connection's copy (Tx.StmtContext). Parsing that insert
// was a measurable share of an idle agent's CPU at a 1 s interval
// (docs/benchmarks.md, "The agent beside its floor").

const (
	recordSQL = `INSERT INTO run_trace
(job_id, trigger, scheduled_at, started_at, finished_at, outcome, reason, duration_ms, detail, boot_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// prepared holds the writer's prepared statements (nil when read-only, or
// when preparing failed: each use then parses its SQL as before).
type prepared struct {
	record *sql.Stmt
}

// prepareWriter prepares the per-cycle statements on the writer. It runs
// once the schema is current, while no transaction holds the writer's one
// connection (preparing inside one would wait for it forever).
func (s *Store) prepareWriter(ctx context.Context) {
	s.stmts.record, _ = s.w.PrepareContext(ctx, recordSQL)
}

// closePrepared closes the statements before the writer.
func (s *Store) closePrepared() {
	if s.stmts.record != nil {
		_ = s.stmts.record.Close()
	}
	s.stmts = prepared{}
}

// execIn runs st's SQL in tx: through tx's handle on st (prepared on tx's
// connection once), or parsed anew without st.
func execIn(ctx context.Context, tx *sql.Tx, st *sql.Stmt, query string, args ...any) (sql.Result, error) {
	if st == nil {
		return tx.ExecContext(ctx, query, args...)
	}
	return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
}
