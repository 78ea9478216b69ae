package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

// steadyOptions are the flags of the steady scenario.
type steadyOptions struct {
	window, every time.Duration
	cadences      string
	before        string // another svc-ctl binary run beside, e.g. main's
	samples       string // CSV of every sample
	short         bool
}

// steady runs, all at once and for the same window, the floor program and
// a real agent with one healthy HTTP service at each cadence (and the
// -before binary's agent beside it), then prints each one's steady state
// (the median of the last minute's samples) and its ratios to the floor of
// its cadence. Everything shares the window, so the machine's load falls on
// all of them alike.
func steady(ctx context.Context, k *benchkit.Kit, bins benchkit.Binaries, o steadyOptions) error {
	floorBin, err := k.BuildFloor(ctx)
	if err != nil {
		return err
	}
	url, err := k.FloorURL()
	if err != nil {
		return err
	}
	agents := []struct{ label, bin string }{{"svc-ctl", bins.SvcCtl}}
	if o.before != "" {
		agents = append(agents, struct{ label, bin string }{"svc-ctl before", o.before})
	}
	var subjects []benchkit.Subject
	for _, c := range strings.Split(o.cadences, ",") {
		every, err := time.ParseDuration(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("-cadences %q: %w", c, err)
		}
		floor := "floor " + every.String()
		f, err := k.StartFloor(floorBin, url, every)
		if err != nil {
			return err
		}
		subjects = append(subjects, benchkit.Subject{Name: floor, PIDs: []int{f.PID}})
		for _, ag := range agents {
			b := bins
			b.SvcCtl = ag.bin
			r, err := start(ctx, k, b, setup{services: 1, interval: every.String()})
			if err != nil {
				return fmt.Errorf("%s at %s: %w", ag.label, every, err)
			}
			k.Defer(r.stop)
			subjects = append(subjects, benchkit.Subject{Name: ag.label + " " + every.String(), Floor: floor, PIDs: []int{r.agent.PID}})
		}
	}
	so := benchkit.SteadyOptions{Window: o.window, Every: o.every, Progress: os.Stdout}
	if o.samples != "" {
		f, err := os.Create(o.samples)
		if err != nil {
			return fmt.Errorf("-samples: %w", err)
		}
		defer f.Close()
		so.Samples = f
	}
	fmt.Printf("steady state: %d programs side by side for %s, a sample every %s\n", len(subjects), o.window, o.every)
	rs, err := benchkit.RunSteady(ctx, subjects, so)
	if err != nil {
		return err
	}
	fmt.Print(benchkit.SteadyTable(rs, o.window))
	return nil
}
