package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"svcctl/watchdog"

	"github.com/spf13/cobra"
)

func init() { addCommand(newScheduleCommand) }

type slotView struct {
	UTC   string `json:"utc"`
	Zone  string `json:"job_zone"`
	Local string `json:"local"`
}

func newScheduleCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "schedule", Short: "Inspect job schedules"}
	var (
		n      int
		asJSON bool
	)
	next := &cobra.Command{
		Use:         "next JOB",
		Annotations: trust(trustRead),
		Short:       "The next fire times of a job, in UTC, in the job's zone and in local time",
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 1 || n > 1000 {
				return usageError{fmt.Errorf("-n %d: want 1..1000", n)}
			}
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			j := cfg.Job(args[0])
			if j == nil {
				return usageError{fmt.Errorf("%w: job %q", watchdog.ErrUnknownName, args[0])}
			}
			s, err := j.Cron(time.Now())
			if err != nil {
				return configError{err}
			}
			var out []slotView
			t := time.Now()
			for range n {
				t = s.Next(t)
				if t.IsZero() {
					break
				}
				out = append(out, slotView{UTC: t.UTC().Format(time.RFC3339), Zone: t.In(j.Location).Format("2006-01-02T15:04:05-07:00 MST"),
					Local: t.Local().Format("2006-01-02T15:04:05-07:00 MST")})
			}
			if asJSON {
				return writeJSON(g.stdout, map[string]any{"job": j.Name, "schedule": j.Schedule, "timezone": j.Location.String(), "local_zone": time.Local.String(), "next": out})
			}
			fmt.Fprintf(g.stdout, "%s: %q in %s\n", j.Name, j.Schedule, j.Location)
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "UTC\t%s\tLOCAL (%s)\n", j.Location, time.Local)
			for _, v := range out {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", v.UTC, v.Zone, v.Local)
			}
			return tw.Flush()
		},
	}
	next.Flags().IntVarP(&n, "count", "n", 5, "how many slots")
	next.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.AddCommand(next)
	return cmd
}
