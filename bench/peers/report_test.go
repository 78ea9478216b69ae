package main

import (
	"strings"
	"testing"
	"time"
)

func TestSpliceReplacesOnlyTheBlock(t *testing.T) {
	doc := "# Benchmarks\n\nintro\n\n" + sectionHead + "\n\n" + beginMarker + "\nold table\n" + endMarker + "\n\n## after\n\nkept\n"
	got, err := splice(doc, beginMarker+"\nnew table\n"+endMarker+"\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Benchmarks\n\nintro\n\n" + sectionHead + "\n\n" + beginMarker + "\nnew table\n" + endMarker + "\n\n## after\n\nkept\n"
	if got != want {
		t.Fatalf("splice:\n%s\nwant:\n%s", got, want)
	}
}

func TestSpliceAppendsASectionWithoutMarkers(t *testing.T) {
	got, err := splice("# Benchmarks\n\nintro\n\n\n", beginMarker+"\nt\n"+endMarker+"\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Benchmarks\n\nintro\n\n" + sectionHead + "\n\n" + beginMarker + "\nt\n" + endMarker + "\n"
	if got != want {
		t.Fatalf("splice:\n%q\nwant:\n%q", got, want)
	}
}

func TestSpliceRefusesBrokenMarkers(t *testing.T) {
	for _, doc := range []string{
		"x\n" + beginMarker + "\nno end\n",
		"x\n" + endMarker + "\n" + beginMarker + "\n",
	} {
		if _, err := splice(doc, "block"); err == nil || !strings.Contains(err.Error(), "markers") {
			t.Errorf("splice(%q) = %v, want an error naming the markers", doc, err)
		}
	}
}

// The table says in words which peers never replaced a hung instance, from
// the trials, and judges svc-ctl against the ratios.
func TestMarkdownStatesNeverAndRatios(t *testing.T) {
	r := &record{started: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), finished: time.Date(2026, 12, 1, 3, 30, 0, 0, time.UTC),
		host: "linux/amd64", commit: "commit abc1234", loadStart: "0.1 0.2 0.3", loadEnd: "0.4 0.5 0.6",
		load: loadStats{min: 0.1, max: 0.9, mean: 0.4, n: 10}, trials: 3,
		opts: options{idle: time.Minute, settle: 5 * time.Second, hangWindow: 10 * time.Second}}
	mo, sup, pm, sc := &monit{}, &supervisord{}, &pm2{}, &svcctl{}
	for _, p := range []peer{mo, sup, pm, sc} {
		r.add(p, "v")
	}
	idle := func(rss, cpu float64) []idleFigures {
		return []idleFigures{{rss, 1, cpu}, {rss, 1, cpu}, {rss, 1, cpu}}
	}
	r.of(mo).idle, r.of(mo).kill, r.of(mo).hang = idle(4, 400), []float64{500, 600, 700}, hangFigures{replaced: []float64{3000, 3000, 3000}}
	r.of(sup).idle, r.of(sup).hang = idle(25, 10), hangFigures{missed: 3}
	r.of(pm).idle, r.of(pm).kill, r.of(pm).hang = idle(54, 12), []float64{20, 20, 20}, hangFigures{missed: 3}
	r.of(sc).idle, r.of(sc).kill, r.of(sc).hang = idle(16, 180), []float64{9, 9, 9}, hangFigures{replaced: []float64{2100, 2100}, missed: 1}
	md := r.markdown()
	for _, want := range []string{
		beginMarker, endMarker, "2026-12-01, 03:00–03:30 UTC", "commit abc1234", "min 0.10, mean 0.40, max 0.90",
		"**never**: not replaced within 10s (3 of 3 trials)",
		"not replaced within 10s: supervisord (3 of 3 trials), PM2 (3 of 3 trials)",
		"2100 (2100–2100); not replaced within 10s in 1 of 3 trials",
		"| idle RSS ≤ 2.7 × monit's | 4.00 × | **missed** |",
		"| idle CPU ≤ 0.5 × monit's | 0.45 × | met |",
		"| hung → new instance ≤ 0.75 × monit's | 0.70 × | met |",
		"| SIGKILL → 200 ≤ 0.5 × PM2's | 0.45 × | met |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
