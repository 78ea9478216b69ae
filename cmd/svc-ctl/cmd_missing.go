package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"svcctl/report"
	"svcctl/runtrace"
)

func init() { addCommand(newMissingCommand) }

func newMissingCommand(g *globals) *cobra.Command {
	var (
		since       string
		jobs        []string
		asJSON, utc bool
	)
	cmd := &cobra.Command{
		Use:         "missing",
		Annotations: trust(trustRead),
		Short:       "List expected job slots that have no run_trace row (exit 1 if any)",
		Long: `Every slot a job's schedule expected in the window — from its registration (the
first time an agent loaded it), minus its grace — that has no row in run_trace.
A slot covered by any row (ok, skipped, failed) is not missing: only "never
triggered" is. Slots before the job existed are never expected.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			now := time.Now()
			from, err := parseSince("since", since, now)
			if err != nil {
				return err
			}
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			for _, j := range jobs {
				if cfg.Job(j) == nil {
					return usageError{fmt.Errorf("--job %q: not a job in %s", j, cfg.Path)}
				}
			}
			st, err := openLedgerForRead(cfg)
			if err != nil {
				return err
			}
			defer st.Close()
			ms, err := report.Missing(ctxOf(cmd.Context()), st, cfg, jobs, from, now)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(g.stdout, ms); err != nil {
					return err
				}
			} else if len(ms) == 0 {
				fmt.Fprintf(g.stdout, "no missing slots since %s\n", fmtTime(from, utc))
			} else {
				tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "JOB\tSLOT\tIN ITS ZONE")
				for _, m := range ms {
					_, name := runtrace.SplitID(m.Job)
					loc := cfg.Job(name).Location
					fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Job, fmtTime(m.Slot, utc), m.Slot.In(loc).Format("2006-01-02 15:04 MST"))
				}
				tw.Flush()
				fmt.Fprintf(g.stdout, "%d missing; `svc-ctl why JOB --at SLOT` explains one\n", len(ms))
			}
			if len(ms) > 0 {
				return errSilent
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&since, "since", "7d", "window: a duration back from now (24h, 40d) or a time")
	cmd.Flags().StringSliceVar(&jobs, "job", nil, "only these jobs (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().BoolVar(&utc, "utc", false, "print times in UTC")
	return cmd
}
