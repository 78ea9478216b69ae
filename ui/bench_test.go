package ui

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "modernc.org/sqlite" // to seed a week of rows in one statement
)

// seedSeconds writes n routine cycles of web, one a second up to now, with
// a restart every hour, straight into the ledger in one statement (Record
// would commit n times), then checkpoints it as a stopped agent leaves it.
func seedSeconds(b *testing.B, pg *page, n int) {
	b.Helper()
	pg.store.Close()
	db, err := sql.Open("sqlite", pg.p.DB())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now().Add(-time.Duration(n) * time.Second).UnixMilli()
	_, err = db.Exec(`INSERT INTO run_trace (job_id, trigger, started_at, finished_at, outcome, reason, duration_ms, detail)
WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?2)
SELECT 'watchdog:web', 'schedule', ?1 + i * 1000, ?1 + i * 1000 + 3, 'ok',
  CASE WHEN i % 3600 = 0 THEN 'started' ELSE 'already-running' END, 3,
  CASE WHEN i % 3600 = 0 THEN '{"cause":"exited: killed by SIGKILL","message":"started"}' ELSE '{"state":"healthy"}' END
FROM seq`, start, n)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTimeline is what one /api/timeline costs before its cache, for
// a service that cycles every second (86 400 rows a day), over a day and a
// week: the page asks every 2 s (the week every 10 s), and the cache holds
// an answer at least ten times as long as it took to compute.
func BenchmarkTimeline(b *testing.B) {
	pg := newPage(b)
	seedSeconds(b, pg, 7*86400)
	for _, c := range []struct {
		name string
		span time.Duration
	}{{"1h", time.Hour}, {"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				tl := buildTimeline(context.Background(), pg.cfg, time.Now(), c.span)
				if tl.Error != "" || sum(tl.Strips[0].Ran) < 286 {
					b.Fatalf("timeline: %s, runs in %d buckets of 288", tl.Error, sum(tl.Strips[0].Ran))
				}
			}
		})
	}
}

// BenchmarkState is what one /api/state costs: status from the evidence
// (state files, ledger, the live process tree), the restart causes, the
// jobs; verify runs in the background at most once a minute and is not in
// this figure.
func BenchmarkState(b *testing.B) {
	pg := newPage(b)
	pg.startAndKill()
	pg.srv.page(context.Background()) // starts verify's first run in the background
	pg.srv.Wait()
	b.ResetTimer()
	for b.Loop() {
		if p, err := pg.srv.page(context.Background()); err != nil || len(p.Services) != 1 {
			b.Fatalf("page: %v", err)
		}
	}
}
