package runtrace

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestNotableAndDensity: every run of a window that is not a routine healthy
// cycle is a mark; the density counts every run of the window per bucket.
func TestNotableAndDensity(t *testing.T) {
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
	d, err := s.Density(ctxb, "watchdog:web", m(0), m(20), 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 2 || d[0] != 3 || d[1] != 4 {
		t.Errorf("density = %v, want map[0:3 1:4] (runs started at 0,1,2 and 11,12,13,14)", d)
	}
	if _, err := s.Density(ctxb, "watchdog:web", m(0), m(20), 0); err == nil {
		t.Error("a zero bucket width was accepted")
	}
}

// BenchmarkTimelineDay: what one strip of the status page costs on a day of
// 1 s cycles (86 400 routine rows and a restart an hour): the notable runs
// and a 288-bucket density.
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
		if d, err := s.Density(ctxb, "watchdog:web", start, end, 5*time.Minute); err != nil || len(d) != 288 {
			b.Fatalf("density: %d, %v", len(d), err)
		}
	}
}
