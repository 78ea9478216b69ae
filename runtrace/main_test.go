package runtrace

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMain doubles as the crash child: the crash test re-executes the test
// binary with crashChildEnv set, and the child never returns from here.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path, os.Stdout)
		return
	}
	os.Exit(m.Run())
}

var ctxb = context.Background()

// t0 is a fixed instant so tests do not depend on the clock.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func dbPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "state", "svc-ctl.db")
}

func openT(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newStore(t *testing.T) *Store {
	t.Helper()
	return openT(t, dbPath(t))
}

// rawDB opens the file with the driver alone, bypassing every check of
// Open: to build fixtures and to try what the Go validation would refuse.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// undo[v] undoes migration step v (bringing a file from version v back to
// v-1), so a test can make the file an older svc-ctl left. Every step but
// the first has its undo (TestEveryMigrationHasItsUndo).
var undo = map[int][]string{
	2: {"DROP TABLE deliveries", "DROP TABLE outbox", "DROP TABLE notify_channels", "DROP TABLE notify_sent", "DROP TABLE notify_marks"},
	3: {"DROP TRIGGER run_trace_slot_deleted", "DROP TRIGGER run_trace_slot_moved", "DROP TABLE job_coverage"},
	4: {"ALTER TABLE run_trace DROP COLUMN instance_id"},
	5: {"DROP INDEX run_trace_notable"},
	6: {"ALTER TABLE run_trace DROP COLUMN boot_id"},
	7: {"DROP TRIGGER run_trace_finished_insert", "DROP TRIGGER run_trace_finished_update",
		"DROP INDEX run_trace_seq", "ALTER TABLE run_trace DROP COLUMN seq", "DROP TABLE finish_counter", "DROP TABLE export_cursors"},
}

// downgrade makes the current-schema file db an older svc-ctl's of schema
// version to.
func downgrade(t *testing.T, db *sql.DB, to int) {
	t.Helper()
	for v := schemaVersion; v > to; v-- {
		mustExec(t, db, undo[v]...)
	}
	mustExec(t, db, fmt.Sprintf("PRAGMA user_version = %d", to))
}

func TestEveryMigrationHasItsUndo(t *testing.T) {
	for v := 2; v <= schemaVersion; v++ {
		if len(undo[v]) == 0 {
			t.Errorf("migration step %d has no undo in main_test.go: add one so the migration tests can make a file of version %d", v, v-1)
		}
	}
}

func mustRecord(t *testing.T, s *Store, r Run) int64 {
	t.Helper()
	if r.Trigger == "" {
		r.Trigger = TriggerSchedule
	}
	id, err := s.Record(ctxb, r)
	if err != nil {
		t.Fatalf("Record(%+v): %v", r, err)
	}
	return id
}

func getRun(t *testing.T, s *Store, id int64) Run {
	t.Helper()
	r, err := scanRun(s.r.QueryRow(`SELECT `+runColumns+` FROM run_trace WHERE id = ?`, id))
	if err != nil {
		t.Fatalf("read run %d: %v", id, err)
	}
	return r
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readLineBefore reads one line from r or fails the test at the deadline.
func readLineBefore(t *testing.T, r *bufio.Reader, deadline time.Time) string {
	t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := r.ReadString('\n')
		ch <- res{l, err}
	}()
	select {
	case x := <-ch:
		if x.err != nil && x.err != io.EOF {
			t.Fatalf("read child output: %v", x.err)
		}
		return x.line
	case <-time.After(time.Until(deadline)):
		t.Fatalf("no output from child before the deadline")
	}
	return ""
}

// lockWriter holds the database's write lock from another connection until
// the returned transaction ends.
func lockWriter(t *testing.T, path string) *sql.Tx {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tx, err := db.Begin()
	if err != nil {
		t.Fatalf("take write lock: %v", err)
	}
	return tx
}

// bulkInsert writes n finished runs of job, one a minute from start, in one
// statement (fast fixtures, also under -race; Record would commit n times).
func bulkInsert(t *testing.T, s *Store, job string, start time.Time, n int) {
	t.Helper()
	err := s.tx(ctxb, "seed", func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO run_trace
(job_id, trigger, scheduled_at, started_at, finished_at, outcome, reason, duration_ms, detail)
WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?1)
SELECT ?2, 'schedule', ?3 + i * 60000, ?3 + i * 60000, ?3 + i * 60000 + 1000, 'ok', 'completed', 1000, '{"exit_code":0}'
FROM seq`, n, job, start.UnixMilli())
		return err
	})
	if err != nil {
		t.Fatalf("seed %d runs: %v", n, err)
	}
}
