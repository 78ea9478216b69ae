// Command missing measures `svc-ctl missing --since 40d` on a full ledger:
// 50 jobs running every minute, registered 41 days ago, one run_trace row
// for every slot (about 2.95 M rows), so the answer is "no missing slots"
// and every expected slot has to be checked.
//
//	go run ./bench/missing [-trials 5] [-jobs 50] [-days 41] [-state DIR]
//
// The ledger is built with runtrace.Open (schema) and Register (one
// registration per job, -days back), then bulk rows through
// bench/internal/ledgergen. With -state DIR an existing build is reused
// (and a new one kept there). It then times the real CLI with no slot
// coverage, a day-old one and a fresh one (runtrace.Coverage), and
// in-process the parts of the answer (the counts report.Missing compares,
// the listing it falls back to for a part with a gap).
//
// Aims: < 300 ms for the first check; <= 100 ms with the coverage fresh.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/bench/internal/ledgergen"
	"svcctl/config"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/state"
)

type options struct {
	jobs  int
	days  int
	ahead time.Duration
	state string
}

func main() {
	c := benchkit.CommonFlags()
	var o options
	flag.IntVar(&o.jobs, "jobs", 50, "jobs, each running every minute")
	flag.IntVar(&o.days, "days", 41, "registered this many days ago; rows cover every slot since")
	flag.DurationVar(&o.ahead, "ahead", 2*time.Hour, "rows also cover slots this far past now, so a reused build stays complete that long")
	flag.StringVar(&o.state, "state", "", "directory for the config and ledger; reused when it already holds them (default: a temporary one)")
	benchkit.Main("bench/missing", c, func(ctx context.Context, k *benchkit.Kit) error {
		return run(ctx, k, o)
	})
}

func run(ctx context.Context, k *benchkit.Kit, o options) error {
	fmt.Println(benchkit.Machine())
	bins, err := k.Build(ctx)
	if err != nil {
		return err
	}
	cfgPath, err := ledger(ctx, k, bins, o)
	if err != nil {
		return err
	}
	if err := cli(ctx, k, bins, cfgPath); err != nil {
		return err
	}
	if err := parts(ctx, k, cfgPath); err != nil {
		return err
	}
	benchkit.PrintLoad()
	return nil
}

// ledger returns the config of a built ledger, building it unless -state
// already holds one.
func ledger(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o options) (string, error) {
	dir := o.state
	if dir == "" {
		d, err := k.SubDir("missing")
		if err != nil {
			return "", err
		}
		dir = d
	}
	cfgPath := filepath.Join(dir, "svc-ctl.toml")
	if _, err := os.Stat(filepath.Join(dir, "state", "svc-ctl.db")); err == nil {
		fmt.Printf("reusing the ledger in %s (built earlier; rows reach %s past its build)\n", dir, o.ahead)
		// Opened for writing once, as an agent would: brings its schema up
		// to date (the CLI only reads).
		st, err := runtrace.Open(filepath.Join(dir, "state", "svc-ctl.db"), runtrace.Options{Logger: quiet})
		if err != nil {
			return "", err
		}
		return cfgPath, st.Close()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("-state %s: %w", dir, err)
	}
	if err := writeConfig(cfgPath, filepath.Join(dir, "state"), o.jobs, bins.TestSvc); err != nil {
		return "", err
	}
	return cfgPath, build(ctx, cfgPath, o)
}

func writeConfig(path, state string, jobs int, testsvc string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "[agent]\nstate_dir = %q\n", state)
	for i := range jobs {
		// Never run by this benchmark (no agent runs); rows stand for its runs.
		fmt.Fprintf(&b, "\n[[job]]\nname = \"j%02d\"\nschedule = \"* * * * *\"\ntimezone = \"UTC\"\ncommand = [%q, \"--exit-now\", \"0\"]\n", i, testsvc)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// build registers every job -days back and writes a row for every slot from
// then until -ahead past now.
func build(ctx context.Context, cfgPath string, o options) error {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	db := state.PathsOf(cfg).DB()
	if err := os.MkdirAll(cfg.Agent.StateDir, 0o700); err != nil {
		return err
	}
	now := time.Now().UTC()
	reg := now.AddDate(0, 0, -o.days)
	st, err := runtrace.Open(db, runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	ids := make([]string, len(cfg.Jobs))
	for i := range cfg.Jobs {
		j := &cfg.Jobs[i]
		ids[i] = runtrace.JobID(j.Name)
		if _, err := st.Register(ctx, ids[i], j.Registration(), reg); err != nil {
			st.Close()
			return err
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	t0 := time.Now()
	n, err := ledgergen.Fill(ctx, db, ledgergen.Spec{Jobs: ids, Slots: ledgergen.Minutes(reg, now.Add(o.ahead))})
	if err != nil {
		return err
	}
	fmt.Printf("built: %d jobs registered %d days back, %d rows in %s, %.0f MiB\n",
		len(ids), o.days, n, time.Since(t0).Round(time.Second), mib(fileSize(db)))
	return nil
}

func fileSize(path string) int64 {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	return total
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// cli times the real command, checking it found the ledger complete, in
// three states of the ledger's slot coverage (runtrace.Coverage): none
// (the first check ever: it counts 40 days and records the coverage), a
// day old (a check a day after the last one, or after the agent last
// refreshed it), and fresh (the check right after another, or with the
// agent refreshing it).
func cli(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, cfgPath string) error {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	db := state.PathsOf(cfg).DB()
	for _, c := range []struct {
		what  string
		setup func() error
		aim   string
	}{
		{"no coverage (first check)", func() error { return setCoverage(db, -1) }, "< 300 ms"},
		{"coverage a day old", func() error { return refreshed(ctx, cfg, 24*time.Hour) }, ""},
		{"coverage fresh (the agent's hourly refresh)", func() error { return refreshed(ctx, cfg, 0) }, "<= 100 ms"},
	} {
		var walls, cpus []float64
		for range k.Common.Trials {
			if err := c.setup(); err != nil {
				return err
			}
			r, err := benchkit.RunCLI(ctx, 5*time.Minute, bins.SvcCtl, "--config", cfgPath, "missing", "--since", "40d")
			if err != nil {
				return err
			}
			if r.Code != 0 || !strings.HasPrefix(r.Stdout, "no missing slots") {
				return fmt.Errorf("svc-ctl missing: exit %d: %.500s%s", r.Code, r.Stdout, r.Stderr)
			}
			walls = append(walls, benchkit.Ms(r.Wall))
			cpus = append(cpus, benchkit.Ms(r.CPU()))
		}
		benchkit.Figure("`svc-ctl missing --since 40d`, "+c.what+", wall", benchkit.Summarize(walls), "ms", 0, c.aim)
		benchkit.Figure("  user+sys CPU", benchkit.Summarize(cpus), "ms", 0, "")
	}
	return nil
}

// refreshed brings every job's coverage up to now, as the agent's hourly
// refresh does (the CLI opens the ledger read-only and records none), then
// ages it by age.
func refreshed(ctx context.Context, cfg *config.Config, age time.Duration) error {
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{Logger: quiet})
	if err != nil {
		return err
	}
	_, err = report.Missing(ctx, st, cfg, nil, time.Now().AddDate(0, 0, -40), time.Now())
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil || age == 0 {
		return err
	}
	return setCoverage(state.PathsOf(cfg).DB(), age)
}

// setCoverage drops every job's slot coverage (age < 0), or moves its end
// back by age: a coverage may always claim less than it could, never more,
// so this leaves the ledger as a check `age` ago would have.
func setCoverage(db string, age time.Duration) error {
	h, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer h.Close()
	if age < 0 {
		_, err = h.Exec(`DELETE FROM job_coverage`)
	} else {
		_, err = h.Exec(`UPDATE job_coverage SET covered_through = covered_through - ? WHERE covered_through - ? >= covered_from`,
			age.Milliseconds(), age.Milliseconds())
	}
	if err != nil {
		return fmt.Errorf("set slot coverage: %w", err)
	}
	return nil
}
