// Command harness runs svc-ctl's Windows build under Wine: every package's
// Windows test binary, then an end-to-end scenario of svc-ctl.exe (CLI verbs,
// the agent, install as a Windows service, a prefix reboot, verify,
// uninstall). e2e/windows/run.sh prepares the prefix and calls it; see
// docs/windows.md for what this proves and what it does not.
//
// A failure is tolerated only when the gap list (gaps.go) names it; anything
// else fails the run. Exit status: 0 no FAIL, 1 a FAIL, 2 the harness could
// not run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

type options struct {
	root, prefix, wine, server, work string
	units, e2e                       bool
	only                             string
	timeout                          time.Duration
	jobs                             int
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", "", "module root (default: from go env GOMOD)")
	flag.StringVar(&o.prefix, "prefix", "", "WINEPREFIX prepared by run.sh (required)")
	flag.StringVar(&o.wine, "wine", "wine64", "the wine64 loader")
	flag.StringVar(&o.server, "wineserver", "wineserver", "the wineserver")
	flag.StringVar(&o.work, "work", "", "work dir for binaries, logs and the scenario (required)")
	flag.BoolVar(&o.units, "units", true, "run every package's Windows test binary")
	flag.BoolVar(&o.e2e, "e2e", true, "run the end-to-end scenario")
	flag.StringVar(&o.only, "only", "", "comma-separated packages to test (default: all)")
	flag.DurationVar(&o.timeout, "timeout", 4*time.Minute, "per test binary")
	flag.IntVar(&o.jobs, "jobs", 2, "test binaries run at once (their own timing guards are generous; the scenario runs alone after)")
	flag.Parse()
	if o.prefix == "" || o.work == "" {
		fmt.Fprintln(os.Stderr, "harness: -prefix and -work are required (run e2e/windows/run.sh)")
		os.Exit(2)
	}
	code, err := run(o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(o options, out io.Writer) (int, error) {
	ctx := context.Background()
	if o.root == "" {
		b, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			return 0, fmt.Errorf("go env GOMOD: %w", err)
		}
		o.root = filepath.Dir(strings.TrimSpace(string(b)))
	}
	bins := filepath.Join(o.work, "bin")
	logs := filepath.Join(o.work, "logs")
	for _, d := range []string{bins, logs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return 0, err
		}
	}
	w := &wine{bin: o.wine, server: o.server, prefix: o.prefix, prebuilt: bins}
	t := time.Now()
	if err := buildHelpers(ctx, o.root, bins); err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "== built svc-ctl.exe and the test helpers in %s\n", since(t))
	failed := false
	if o.units {
		var only []string
		if o.only != "" {
			only = strings.Split(o.only, ",")
		}
		pkgs, err := listTestPkgs(ctx, o.root, only)
		if err != nil {
			return 0, err
		}
		t = time.Now()
		if err := buildTests(ctx, o.root, filepath.Join(o.work, "tests"), pkgs); err != nil {
			return 0, err
		}
		fmt.Fprintf(out, "== built %d Windows test binaries in %s\n", len(pkgs), since(t))
		t = time.Now()
		runs := runAll(w, pkgs, o, logs, out)
		fmt.Fprintf(out, "== ran %d Windows test binaries, %d at a time, in %s\n", len(runs), o.jobs, since(t))
		failed = printUnits(out, runs) || failed
	}
	if o.e2e {
		res, figs, err := e2e(w, o, bins, logs)
		if err != nil {
			return 0, err
		}
		failed = printE2E(out, res, figs) || failed
	}
	if failed {
		fmt.Fprintln(out, "== Windows under Wine: FAIL")
		return 1, nil
	}
	fmt.Fprintln(out, "== Windows under Wine: PASS (tolerated failures are named gaps only)")
	return 0, nil
}

// solo are the packages whose tests measure contention between processes
// and run alone, after the others: runtrace's eight writer processes
// contend for SQLite's write lock, and with another test binary beside them
// under Wine a writer can wait past the 10 s busy timeout.
var solo = map[string]bool{"svcctl/runtrace": true}

// runAll runs the test binaries, o.jobs at a time (the solo ones alone,
// last), and returns their rows in pkgs' order; each prints a line as it
// ends.
func runAll(w *wine, pkgs []testPkg, o options, logs string, out io.Writer) []unitRun {
	runs := make([]unitRun, len(pkgs))
	var mu sync.Mutex
	run := func(i int) {
		r := runTests(w, pkgs[i], o.timeout, logs)
		mu.Lock()
		fmt.Fprintf(out, "%-10s %s (%s)\n", r.Result.Verdict, pkgs[i].ImportPath, r.Elapsed.Round(100*time.Millisecond))
		mu.Unlock()
		runs[i] = r
	}
	sem := make(chan struct{}, max(o.jobs, 1))
	var wg sync.WaitGroup
	for i, p := range pkgs {
		if solo[p.ImportPath] {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			run(i)
		})
	}
	wg.Wait()
	for i, p := range pkgs {
		if solo[p.ImportPath] {
			run(i)
		}
	}
	return runs
}

func e2e(w *wine, o options, bins, logs string) ([]stepResult, []figure, error) {
	dir := filepath.Join(o.work, "e2e")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, nil, err
	}
	logf, err := os.Create(filepath.Join(logs, "e2e.log"))
	if err != nil {
		return nil, nil, err
	}
	defer logf.Close()
	s := &scenario{
		w: w, exe: filepath.Join(bins, "svc-ctl.exe"), svc: filepath.Join(bins, "testsvc.exe"),
		dir: dir, cfg: filepath.Join(dir, "svc-ctl.toml"), addr: addr, log: logf,
	}
	if err := s.writeConfig(true); err != nil {
		return nil, nil, err
	}
	return runScenario(s), s.figures, nil
}

// printUnits prints the per-package table and reports whether any FAILed.
func printUnits(out io.Writer, runs []unitRun) bool {
	fmt.Fprintf(out, "\n== Windows unit tests under Wine: one test binary per package\n")
	fmt.Fprintf(out, "%-36s %-9s %5s %5s %5s %7s  %s\n", "PACKAGE", "RESULT", "PASS", "FAIL", "SKIP", "TIME", "TOLERATED GAPS")
	failed := false
	used := map[string]bool{}
	var total [3]int
	for _, r := range runs {
		res := r.Result
		fmt.Fprintf(out, "%-36s %-9s %5d %5d %5d %7s  %s\n", strings.TrimPrefix(r.Pkg.ImportPath, "svcctl/"),
			res.Verdict, res.Passed, res.Failed, res.Skip, r.Elapsed.Round(100*time.Millisecond), gapSummary(res.Gaps))
		total[0], total[1], total[2] = total[0]+res.Passed, total[1]+res.Failed, total[2]+res.Skip
		for g := range res.Gaps {
			used[g] = true
		}
		failed = failed || res.Verdict == Fail
	}
	fmt.Fprintf(out, "%-36s %-9s %5d %5d %5d\n", "total", "", total[0], total[1], total[2])
	for _, r := range runs {
		for _, why := range r.Result.Why {
			fmt.Fprintf(out, "FAIL %s: %s\n", r.Pkg.ImportPath, clip(why, 600))
		}
		if len(r.Result.Why) > 0 {
			fmt.Fprintf(out, "     (full output: %s)\n", r.Log)
		}
	}
	for _, r := range runs {
		for _, sk := range r.Result.Skips {
			fmt.Fprintf(out, "skip %s: %s\n", strings.TrimPrefix(r.Pkg.ImportPath, "svcctl/"), clip(sk, 200))
		}
	}
	printGaps(out, used)
	return failed
}

func printE2E(out io.Writer, res []stepResult, figs []figure) bool {
	fmt.Fprintf(out, "\n== end-to-end: svc-ctl.exe under Wine\n")
	failed := false
	used := map[string]bool{}
	for _, r := range res {
		fmt.Fprintf(out, "%-9s %-40s %7s  %s\n", r.Verdict, r.Name, r.Elapsed.Round(100*time.Millisecond), clip(r.Note, 400))
		failed = failed || r.Verdict == Fail
		if g := matchGap(r.Note); g != nil {
			used[g.Name] = true
		}
		for _, part := range strings.Split(r.Note, "; ") {
			if g := matchGap(part); g != nil {
				used[g.Name] = true
			}
		}
	}
	for _, f := range figs {
		fmt.Fprintf(out, "figure: %-50s %6d ms\n", f.Name, f.D.Milliseconds())
	}
	printGaps(out, used)
	return failed
}

func printGaps(out io.Writer, used map[string]bool) {
	for _, g := range gaps {
		if used[g.Name] {
			fmt.Fprintf(out, "gap %s: %s\n", g.Name, g.API)
		}
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
