package runtrace

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNotableAndRan: every run of a window that is not a routine healthy
// cycle is a mark; Ran says which buckets saw any run at all.
func TestNotableAndRan(t *testing.T) {
	s := newStore(t)
	m := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	for _, r := range []Run{
		{JobID: "watchdog:web", StartedAt: m(0), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning},
		{JobID: "watchdog:web", StartedAt: m(1), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning},
		{JobID: "watchdog:web", StartedAt: m(2), Outcome: OutcomeOK, Reason: ReasonStarted},
		{JobID: "watchdog:web", StartedAt: m(11), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning},
		{JobID: "watchdog:web", StartedAt: m(12), Outcome: OutcomeFailed, Reason: ReasonStartFailed},
		{JobID: "watchdog:web", StartedAt: m(13), Outcome: OutcomeSkipped, Reason: ReasonPaused},
		{JobID: "watchdog:web", StartedAt: m(30), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning}, // outside
		{JobID: "watchdog:db", StartedAt: m(3), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning},
		{JobID: "job:pull", ScheduledAt: m(4), StartedAt: m(4), Outcome: OutcomeOK, Reason: ReasonCompleted},
	} {
		mustRecord(t, s, r)
	}
	if _, err := s.Begin(ctxb, "watchdog:web", TriggerManual, time.Time{}, m(14)); err != nil {
		t.Fatal(err)
	}
	notable, err := s.Notable(ctxb, "watchdog:web", m(0), m(20), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(notable), "watchdog:web@14 watchdog:web@13 watchdog:web@12 watchdog:web@2 "; got != want {
		t.Errorf("notable = %q, want %q", got, want)
	}
	if limited, _ := s.Notable(ctxb, "watchdog:web", m(0), m(20), 2); ids(limited) != "watchdog:web@14 watchdog:web@13 " {
		t.Errorf("limit 2 = %q: want the newest two", ids(limited))
	}
	if jobs, _ := s.Notable(ctxb, "job:pull", m(0), m(20), 0); len(jobs) != 1 {
		t.Errorf("a job's completed run is a mark: got %d", len(jobs))
	}
	ran, err := s.Ran(ctxb, "watchdog:web", m(0), 5*time.Minute, 6)
	if err != nil {
		t.Fatal(err)
	}
	// runs at minutes 0,1,2 | none | 11,12,13,14 | none | none | 30
	if want := []bool{true, false, true, false, false, false}; fmt.Sprint(ran) != fmt.Sprint(want) {
		t.Errorf("ran = %v, want %v", ran, want)
	}
	if ran, _ := s.Ran(ctxb, "watchdog:web", m(0), 10*time.Minute, 4); fmt.Sprint(ran) != "[true true false true]" {
		t.Errorf("ran in 10-minute buckets = %v, want [true true false true]", ran)
	}
	if _, err := s.Ran(ctxb, "watchdog:web", m(0), 0, 4); err == nil {
		t.Error("a zero bucket width was accepted")
	}
}

// BenchmarkTimelineDay: what one strip of the status page costs on a day of
// 1 s cycles (86 400 routine rows and a restart an hour): the notable runs
// and which of 288 buckets saw a run.
func BenchmarkTimelineDay(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "svc-ctl.db"), Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	start := t0
	err = s.tx(ctxb, "seed", func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO run_trace
(job_id, trigger, started_at, finished_at, outcome, reason, duration_ms, detail)
WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 86400)
SELECT 'watchdog:web', 'schedule', ?1 + i * 1000, ?1 + i * 1000 + 3, 'ok',
  CASE WHEN i % 3600 = 0 THEN 'started' ELSE 'already-running' END, 3, '{"state":"healthy"}'
FROM seq`, start.UnixMilli())
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	end := start.Add(24 * time.Hour)
	b.ResetTimer()
	for b.Loop() {
		if n, err := s.Notable(ctxb, "watchdog:web", start, end, 500); err != nil || len(n) != 24 {
			b.Fatalf("notable: %d, %v", len(n), err)
		}
		if ran, err := s.Ran(ctxb, "watchdog:web", start, 5*time.Minute, 288); err != nil || !ran[0] || !ran[287] {
			b.Fatalf("ran: %v, %v", ran, err)
		}
	}
}

// TestNotableUsesItsIndex: a ledger of schema v4 gets the notable index,
// keeps its rows, and Notable's query is planned on that index (a week of a
// 1 s cycle must not be read row by row to find its marks).
func TestNotableUsesItsIndex(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	mustRecord(t, s, Run{JobID: "watchdog:web", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonStarted})
	s.Close()
	raw := rawDB(t, path)
	downgrade(t, raw, 4)
	raw.Close()
	s = openT(t, path)
	if st := schemaOf(t, s); st.version != schemaVersion {
		t.Fatalf("after migration: %+v", st)
	}
	if rs, err := s.Notable(ctxb, "watchdog:web", t0, t0.Add(time.Minute), 10); err != nil || len(rs) != 1 {
		t.Fatalf("Notable after migration: %v, %v", rs, err)
	}
	q := `EXPLAIN QUERY PLAN SELECT ` + runColumns + ` FROM run_trace
WHERE job_id = ? AND started_at >= ? AND started_at < ? AND NOT (` + routine + `)
ORDER BY started_at DESC, id DESC LIMIT 10`
	rows, err := s.r.Query(q, "watchdog:web", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if !strings.Contains(strings.Join(plan, "; "), "run_trace_notable") {
		t.Errorf("Notable's plan %q does not use run_trace_notable", plan)
	}
}
