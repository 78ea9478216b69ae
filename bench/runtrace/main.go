// Command runtrace measures the run_trace store at the size a host reaches
// at the default retention: 50 jobs running once a minute for 40 days
// (~2.9 M rows). It builds the file, then times the queries the CLI and the
// agent run on it and prints a Markdown table for docs/benchmarks.md.
//
//	go run ./bench/runtrace -rows 2900000
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"svcctl/runtrace"

	_ "modernc.org/sqlite"
)

type config struct {
	rows, jobs, batch, repeat int
	path                      string
	keep                      bool
}

func main() {
	var c config
	flag.IntVar(&c.rows, "rows", 2_900_000, "rows to insert (one per job per minute, ending now)")
	flag.IntVar(&c.jobs, "jobs", 50, "distinct jobs")
	flag.IntVar(&c.batch, "batch", 100_000, "rows per insert transaction")
	flag.IntVar(&c.repeat, "repeat", 5, "times each query is run; the median is printed")
	flag.StringVar(&c.path, "db", "", "database file (default: a new file in a temporary directory)")
	flag.BoolVar(&c.keep, "keep", false, "keep the database file")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench/runtrace:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.path == "" {
		dir, err := os.MkdirTemp("", "bench-runtrace")
		if err != nil {
			return err
		}
		c.path = filepath.Join(dir, "svc-ctl.db")
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	}
	now := time.Now().UTC().Truncate(time.Minute)
	fmt.Printf("host: %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Println("| what | figure |")
	fmt.Println("|---|---|")
	if err := build(c, now); err != nil {
		return err
	}
	return measure(c, now)
}

// build creates the schema through runtrace.Open, then bulk-inserts with
// plain SQL in big transactions (the store commits one run at a time).
func build(c config, now time.Time) error {
	s, err := runtrace.Open(c.path, runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", c.path+"?_txlock=immediate&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	start := time.Now()
	minutes := (c.rows + c.jobs - 1) / c.jobs
	first := now.Add(-time.Duration(minutes) * time.Minute)
	for done := 0; done < c.rows; done += c.batch {
		if err := insertBatch(db, c, first, done, min(c.batch, c.rows-done)); err != nil {
			return err
		}
	}
	row("insert %d rows (%d jobs x %.1f days), %d-row transactions", c.rows, c.jobs, float64(minutes)/1440, c.batch)
	fmt.Printf("%s |\n", fmtDur(time.Since(start)))
	return nil
}

func insertBatch(db *sql.DB, c config, first time.Time, from, n int) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.Prepare(`INSERT INTO run_trace
(job_id, trigger, scheduled_at, started_at, finished_at, outcome, reason, duration_ms, detail)
VALUES (?, 'schedule', ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for k := from; k < from+n; k++ {
		slot := first.Add(time.Duration(k/c.jobs) * time.Minute).UnixMilli()
		started := slot + rand.Int64N(2000)
		dur := 200 + rand.Int64N(5000)
		outcome, reason, detail := verdict(k)
		if _, err := st.Exec(jobName(k%c.jobs), slot, started, started+dur, outcome, reason, dur, detail); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// verdict: 97% ok, 2% failed, 1% skipped, spread over all jobs.
func verdict(k int) (runtrace.Outcome, runtrace.Reason, string) {
	switch k % 100 {
	case 13, 57:
		return runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, fmt.Sprintf(`{"exit_code":1,"pid":%d}`, 1000+k%30000)
	case 71:
		return runtrace.OutcomeSkipped, runtrace.ReasonOverlap, `{"running_id":1}`
	}
	return runtrace.OutcomeOK, runtrace.ReasonCompleted, fmt.Sprintf(`{"exit_code":0,"pid":%d}`, 1000+k%30000)
}

var quiet = slog.New(slog.DiscardHandler)

func jobName(i int) string { return fmt.Sprintf("job:j%02d", i) }

func measure(c config, now time.Time) error {
	ctx := context.Background()
	start := time.Now()
	s, err := runtrace.Open(c.path, runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	defer s.Close()
	row("Open (checks, schema verify) on the full file")
	fmt.Printf("%s |\n", fmtDur(time.Since(start)))

	since := now.AddDate(0, 0, -40)
	job := jobName(7)
	var n int
	timed(c, fmt.Sprintf("runs --job %s --since 40d (limit %d)", job, runtrace.DefaultLimit), func() error {
		r, err := s.Runs(ctx, runtrace.Filter{JobID: job, Since: since, Limit: runtrace.DefaultLimit})
		n = len(r)
		return err
	}, &n)
	timed(c, fmt.Sprintf("count of the same (%s, 40 days)", job), func() error {
		n, err = s.Count(ctx, runtrace.Filter{JobID: job, Since: since})
		return err
	}, &n)
	timed(c, fmt.Sprintf("runs --job %s --since 40d, no limit", job), func() error {
		r, err := s.Runs(ctx, runtrace.Filter{JobID: job, Since: since})
		n = len(r)
		return err
	}, &n)
	timed(c, "runs (all jobs, limit 50)", func() error {
		r, err := s.Runs(ctx, runtrace.Filter{Limit: runtrace.DefaultLimit})
		n = len(r)
		return err
	}, &n)
	timed(c, "runs --job-prefix job: (limit 50; the prefix matches every row)", func() error {
		r, err := s.Runs(ctx, runtrace.Filter{JobPrefix: "job:", Limit: runtrace.DefaultLimit})
		n = len(r)
		return err
	}, &n)
	timed(c, "runs --job-prefix watchdog: (limit 50; matches no row, the worst case)", func() error {
		r, err := s.Runs(ctx, runtrace.Filter{JobPrefix: "watchdog:", Limit: runtrace.DefaultLimit})
		n = len(r)
		return err
	}, &n)
	timed(c, "runs --outcome running (limit 50)", func() error {
		r, err := s.Runs(ctx, runtrace.Filter{Outcome: runtrace.OutcomeRunning, Limit: runtrace.DefaultLimit})
		n = len(r)
		return err
	}, &n)
	timed(c, "failures in the last 24 h, all jobs (count)", func() error {
		n, err = s.Count(ctx, runtrace.Filter{Outcome: runtrace.OutcomeFailed, Since: now.Add(-24 * time.Hour)})
		return err
	}, &n)
	timed(c, fmt.Sprintf("ScheduledSlots over 40 days, all %d jobs", c.jobs), func() error {
		n = 0
		for j := range c.jobs {
			slots, err := s.ScheduledSlots(ctx, jobName(j), since, now)
			if err != nil {
				return err
			}
			n += len(slots)
		}
		return nil
	}, &n)
	timed(c, "count of the whole table", func() error {
		n, err = s.Count(ctx, runtrace.Filter{})
		return err
	}, &n)
	timed(c, "Reap (no running rows; partial index)", func() error {
		n, err = s.Reap(ctx, runtrace.ReapPolicy{Now: now})
		return err
	}, &n)
	if err := beginFinish(ctx, s, now); err != nil {
		return err
	}
	first := now.Add(-time.Duration((c.rows+c.jobs-1)/c.jobs) * time.Minute)
	if err := oneShot("Prune of the oldest day", &n, func() error {
		n, err = s.Prune(ctx, first.Add(24*time.Hour))
		return err
	}); err != nil {
		return err
	}
	if err := oneShot("IntegrityCheck (PRAGMA quick_check)", nil, func() error { return s.IntegrityCheck(ctx) }); err != nil {
		return err
	}
	return fileSize(s.Path())
}

// beginFinish times Begin+Finish pairs on the full file.
func beginFinish(ctx context.Context, s *runtrace.Store, now time.Time) error {
	const n = 200
	lat := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		id, err := s.Begin(ctx, "job:bench", runtrace.TriggerManual, now.Add(time.Duration(i)*time.Second), start)
		if err != nil {
			return err
		}
		if err := s.Finish(ctx, id, runtrace.OutcomeOK, runtrace.ReasonCompleted, nil, time.Now()); err != nil {
			return err
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	row("Begin+Finish on the full file (%d runs, synchronous=FULL)", n)
	fmt.Printf("p50 %s, p99 %s |\n", fmtDur(lat[n/2]), fmtDur(lat[n*99/100]))
	return nil
}

func timed(c config, what string, fn func() error, n *int) {
	lat := make([]time.Duration, 0, c.repeat)
	for range c.repeat {
		start := time.Now()
		if err := fn(); err != nil {
			fmt.Fprintln(os.Stderr, what+":", err)
			os.Exit(1)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	row("%s", what)
	fmt.Printf("%s median of %d (%d rows) |\n", fmtDur(lat[len(lat)/2]), c.repeat, *n)
}

func oneShot(what string, n *int, fn func() error) error {
	start := time.Now()
	if err := fn(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	row("%s", what)
	if n != nil {
		fmt.Printf("%s (%d rows) |\n", fmtDur(time.Since(start)), *n)
	} else {
		fmt.Printf("%s |\n", fmtDur(time.Since(start)))
	}
	return nil
}

func fileSize(path string) error {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		}
	}
	row("file size (database + WAL)")
	fmt.Printf("%.1f MiB |\n", float64(total)/(1<<20))
	return nil
}

func row(format string, a ...any) { fmt.Printf("| "+format+" | ", a...) }

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
