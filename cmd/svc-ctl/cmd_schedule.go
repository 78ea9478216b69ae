package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newScheduleCommand is the `schedule` group; `schedule next` is its verb.
func newScheduleCommand(g *globals) *cobra.Command {
	cmd := newGroupCommand("schedule", "Inspect job schedules")
	cmd.AddCommand(newScheduleNextCommand(g))
	return cmd
}

type scheduleNextOptions struct {
	n    int
	json bool
}

func (o *scheduleNextOptions) addFlags(f *pflag.FlagSet) {
	f.IntVarP(&o.n, "count", "n", 5, "how many slots")
	f.BoolVar(&o.json, "json", false, "print as JSON")
}

func newScheduleNextCommand(g *globals) *cobra.Command {
	var o scheduleNextOptions
	cmd := &cobra.Command{
		Use:               "next JOB",
		Annotations:       trust(trustRead),
		Short:             "The next fire times of a job, in UTC, in the job's zone and in local time",
		ValidArgsFunction: completeJob(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runScheduleNext(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

type slotView struct {
	UTC   string `json:"utc"`
	Zone  string `json:"job_zone"`
	Local string `json:"local"`
}

func runScheduleNext(_ context.Context, g *globals, o scheduleNextOptions, args []string) error {
	if o.n < 1 || o.n > 1000 {
		return usageError{fmt.Errorf("-n %d: want 1..1000", o.n)}
	}
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	j := cfg.Job(args[0])
	if j == nil {
		return unknownJob(cfg, args[0])
	}
	s, err := j.Cron(time.Now())
	if err != nil {
		return configError{err}
	}
	var out []slotView
	t := time.Now()
	for range o.n {
		t = s.Next(t)
		if t.IsZero() {
			break
		}
		out = append(out, slotView{UTC: t.UTC().Format(time.RFC3339), Zone: t.In(j.Location).Format("2006-01-02T15:04:05-07:00 MST"),
			Local: t.Local().Format("2006-01-02T15:04:05-07:00 MST")})
	}
	if o.json {
		return writeJSON(g.stdout, map[string]any{"job": j.Name, "schedule": j.Schedule, "timezone": j.Location.String(), "local_zone": time.Local.String(), "next": out})
	}
	fmt.Fprintf(g.stdout, "%s: %q in %s\n", j.Name, j.Schedule, j.Location)
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "UTC\t%s\tLOCAL (%s)\n", j.Location, time.Local)
	for _, v := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.UTC, v.Zone, v.Local)
	}
	return tw.Flush()
}
