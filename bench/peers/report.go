package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

// The table lives between these markers in docs/benchmarks.md; a run
// replaces what is between them and leaves the rest of the file alone.
const (
	beginMarker = "<!-- bench/peers:begin (written by go run ./bench/peers; edit the program, not this block) -->"
	endMarker   = "<!-- bench/peers:end -->"
	sectionHead = "## Side by side: monit, supervisord, PM2 and svc-ctl"
)

// record is one run: where, when, under what load, and each peer's figures.
type record struct {
	started, finished  time.Time
	host, commit       string
	loadStart, loadEnd string
	load               loadStats
	opts               options
	trials             int
	baseline           benchkit.Summary
	rows               []*row
	steady             []benchkit.Steady
}

// row is one peer's figures.
type row struct {
	p       peer
	version string
	idle    []idleFigures
	kill    []float64
	hang    hangFigures
}

func (r *record) add(p peer, version string) { r.rows = append(r.rows, &row{p: p, version: version}) }

func (r *record) of(p peer) *row {
	for _, x := range r.rows {
		if x.p == p {
			return x
		}
	}
	panic("bench/peers: no row for " + p.name())
}

func (r *record) find(name string) *row {
	for _, x := range r.rows {
		if x.p.name() == name {
			return x
		}
	}
	return nil
}

// summary formats a median and range: "12.3 (10.1–15.2)".
func summary(xs []float64, decimals int) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmtSummary(benchkit.Summarize(xs), decimals)
}

func fmtSummary(s benchkit.Summary, decimals int) string {
	if s.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%.*f (%.*f–%.*f)", decimals, s.Median, decimals, s.Min, decimals, s.Max)
}

func (x *row) idleColumn(f func(idleFigures) float64) []float64 {
	out := make([]float64, len(x.idle))
	for i, v := range x.idle {
		out[i] = f(v)
	}
	return out
}

func rssOf(f idleFigures) float64   { return f.rssMiB }
func anonOf(f idleFigures) float64  { return f.anonMiB }
func cpuOf60(f idleFigures) float64 { return f.cpuMsPer60s }

// markdown is the block written into docs/benchmarks.md, markers included.
func (r *record) markdown() string {
	var b strings.Builder
	o := r.opts
	b.WriteString(beginMarker + "\n\n")
	mode := ""
	if o.quick {
		mode = " **(quick mode: a try, not figures to quote)**"
	}
	fmt.Fprintf(&b, "Measured by `go run ./bench/peers`%s on %s, %s–%s UTC.\n", mode,
		r.started.Format("2006-01-02"), r.started.Format("15:04"), r.finished.Format("15:04"))
	fmt.Fprintf(&b, "Host: %s. Code: %s.\n", r.host, r.commit)
	fmt.Fprintf(&b, "Load during the run (1-minute load average, sampled every 5 s): min %.2f, mean %.2f, max %.2f; "+
		"`/proc/loadavg` at the start %s, at the end %s.\n\n", r.load.min, r.load.mean, r.load.max, r.loadStart, r.loadEnd)
	fmt.Fprintf(&b, "Each figure is the median and (range) of %d trials. Idle: a fresh supervisor per trial, one healthy "+
		"service, %s settle, then CPU (utime+stime of `/proc/PID/stat`, all threads, 10 ms steps) over %s, given per 60 s, and "+
		"VmRSS at its end; only the supervisor's own processes count (PM2: its daemon), never the service. Recovery is timed "+
		"from the SIGKILL, or from the moment `/health` hangs, until `/health` answers 200 from a new instance (polled every "+
		"1 ms over a kept-alive connection). The service is testsvc, a small Go HTTP server: fork to /health 200 alone takes %s ms.\n\n",
		r.trials, o.settle, o.idle, fmtSummary(r.baseline, 1))
	b.WriteString("| | version | configured as | idle RSS, MiB | of which anonymous, MiB | idle CPU per 60 s, ms | SIGKILL → /health 200, ms | /health hangs → a new instance answers, ms |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, x := range r.rows {
		fmt.Fprintf(&b, "| **%s** | %s | %s | %s | %s | %s | %s | %s |\n", x.p.name(), x.version, x.p.settings(),
			summary(x.idleColumn(rssOf), 1), summary(x.idleColumn(anonOf), 1), summary(x.idleColumn(cpuOf60), 0),
			summary(x.kill, 1), x.hang.text(o.hangWindow))
	}
	b.WriteString("\n")
	r.writeNever(&b)
	r.writeAims(&b)
	r.writeSteady(&b)
	b.WriteString(endMarker + "\n")
	return b.String()
}

// writeNever states which peers did not replace a hung service, from the
// trials.
func (r *record) writeNever(b *strings.Builder) {
	var never []string
	for _, x := range r.rows {
		if x.hang.trials() > 0 && len(x.hang.replaced) == 0 {
			never = append(never, fmt.Sprintf("%s (%d of %d trials)", x.p.name(), x.hang.missed, x.hang.trials()))
		}
	}
	if len(never) == 0 {
		return
	}
	fmt.Fprintf(b, "**supervisord and PM2 never replace a hung service**: they have no health check and restart a "+
		"program only when it exits, so a service that is alive but no longer answers stays as it is. In this run, "+
		"not replaced within %s: %s. The bench then killed each hung instance itself, and the peer restarted it on its "+
		"exit, so that the next trial began healthy.\n\n", r.opts.hangWindow, strings.Join(never, ", "))
}

// writeAims compares svc-ctl with the peers by the aims of
// docs/benchmarks.md ("A lean agent"):
// ratios of this run's medians.
func (r *record) writeAims(b *strings.Builder) {
	s, mo, pm := r.find("svc-ctl"), r.find("monit"), r.find("PM2")
	if s == nil {
		return
	}
	type aim struct {
		what  string
		limit float64
		ours  []float64
		peer  []float64
	}
	var aims []aim
	if mo != nil {
		aims = append(aims,
			aim{"idle RSS ≤ 2.7 × monit's", 2.7, s.idleColumn(rssOf), mo.idleColumn(rssOf)},
			aim{"idle CPU ≤ 0.5 × monit's", 0.5, s.idleColumn(cpuOf60), mo.idleColumn(cpuOf60)},
			aim{"hung → new instance ≤ 0.75 × monit's", 0.75, s.hang.replaced, mo.hang.replaced})
	}
	if pm != nil {
		aims = append(aims, aim{"SIGKILL → 200 ≤ 0.5 × PM2's", 0.5, s.kill, pm.kill})
	}
	var rows []string
	for _, a := range aims {
		if len(a.ours) == 0 || len(a.peer) == 0 {
			continue
		}
		ours, theirs := benchkit.Summarize(a.ours).Median, benchkit.Summarize(a.peer).Median
		if theirs == 0 {
			continue
		}
		ratio := ours / theirs
		verdict := "met"
		if ratio > a.limit {
			verdict = "**missed**"
		}
		rows = append(rows, fmt.Sprintf("| %s | %.2f × | %s |", a.what, ratio, verdict))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("svc-ctl against its aims (ratio of the medians above, this run):\n\n| aim | svc-ctl / peer | |\n|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
}

// writeDoc puts the block into the doc file: between the markers when they
// are there, else as a new section at the end.
func writeDoc(ctx context.Context, o options, md string) error {
	path := o.doc
	switch {
	case o.noWrite, o.quick && !o.docSet:
		fmt.Println("docs not written (-quick or -no-doc); -doc FILE writes them")
		return nil
	case path == "":
		root, err := benchkit.ModuleRoot(ctx)
		if err != nil {
			return err
		}
		path = filepath.Join(root, "docs", "benchmarks.md")
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out, err := splice(string(old), md)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Printf("wrote the table into %s\n", path)
	return nil
}

// splice replaces the block between the markers in doc with block (which
// carries its own markers), or appends it under its own heading.
func splice(doc, block string) (string, error) {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	switch {
	case i < 0 && j < 0:
		return strings.TrimRight(doc, "\n") + "\n\n" + sectionHead + "\n\n" + block, nil
	case i < 0 || j < i:
		return "", fmt.Errorf("the bench/peers markers are broken (one missing, or end before begin): fix them by hand")
	}
	rest := doc[j+len(endMarker):]
	rest = strings.TrimPrefix(rest, "\n")
	return doc[:i] + block + rest, nil
}
