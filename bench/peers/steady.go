package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

// steadyRun is the steady scenario: the floor program (bench/memfloor, one
// GET and one insert a second) and every peer with one healthy service, all
// at once for -steady-window, each one's steady state (the median of the
// last minute's samples) and CPU over the window.
func steadyRun(ctx context.Context, e *env, o options, peers []peer) ([]benchkit.Steady, error) {
	floorBin, err := e.k.BuildFloor(ctx)
	if err != nil {
		return nil, err
	}
	url, err := e.k.FloorURL()
	if err != nil {
		return nil, err
	}
	f, err := e.k.StartFloor(floorBin, url, time.Second)
	if err != nil {
		return nil, err
	}
	defer f.Stop()
	subjects := []benchkit.Subject{{Name: "floor", PIDs: []int{f.PID}}}
	for _, p := range peers {
		in, err := startHealthy(ctx, e, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name(), err)
		}
		defer in.stop()
		subjects = append(subjects, benchkit.Subject{Name: p.name(), Floor: "floor", PIDs: in.pids})
	}
	if err := sleepCtx(ctx, o.settle); err != nil {
		return nil, err
	}
	fmt.Printf("steady: %d programs side by side for %s\n", len(subjects), o.steadyWindow)
	return benchkit.RunSteady(ctx, subjects, benchkit.SteadyOptions{Window: o.steadyWindow, Every: 10 * time.Second, Progress: os.Stdout})
}

// writeSteady is the steady scenario's table and the aims read from it.
func (r *record) writeSteady(b *strings.Builder) {
	if len(r.steady) == 0 {
		return
	}
	fmt.Fprintf(b, "Steady state, side by side (all at once, one healthy service each, 1 s cycles; the floor is "+
		"bench/memfloor: Go + modernc.org/sqlite, one GET and one insert a second):\n\n")
	b.WriteString(benchkit.SteadyTable(r.steady, r.opts.steadyWindow))
	var s, mo *benchkit.Steady
	for i := range r.steady {
		switch r.steady[i].Subject.Name {
		case "svc-ctl":
			s = &r.steady[i]
		case "monit":
			mo = &r.steady[i]
		}
	}
	if s != nil && mo != nil && mo.CPUPerMin > 0 {
		verdict := "met"
		if s.CPUPerMin > 0.25*mo.CPUPerMin {
			verdict = "**missed**"
		}
		fmt.Fprintf(b, "\nsvc-ctl's idle CPU is %.2f × monit's (aim ≤ 0.25 ×): %s.\n", s.CPUPerMin/mo.CPUPerMin, verdict)
	}
	b.WriteString("\n")
}
