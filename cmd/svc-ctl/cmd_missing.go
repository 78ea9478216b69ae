package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/report"
	"svcctl/runtrace"
)

type missingOptions struct {
	since     string
	jobs      []string
	json, utc bool
}

func (o *missingOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.since, "since", "7d", "window: a duration back from now (24h, 40d) or a time")
	f.StringSliceVar(&o.jobs, "job", nil, "only these jobs (repeatable)")
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newMissingCommand(g *globals) *cobra.Command {
	var o missingOptions
	cmd := &cobra.Command{
		Use:         "missing",
		Annotations: trust(trustRead),
		Short:       "List expected job slots that have no run_trace row (exit 1 if any)",
		Long: `Every slot a job's schedule expected in the window — from its registration (the
first time an agent loaded it), minus its grace — that has no row in run_trace.
A slot covered by any row (ok, skipped, failed) is not missing: only "never
triggered" is. Slots before the job existed are never expected.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runMissing(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runMissing(ctx context.Context, g *globals, o missingOptions, _ []string) error {
	now := time.Now()
	from, err := parseSince("since", o.since, now)
	if err != nil {
		return err
	}
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	for _, j := range o.jobs {
		if cfg.Job(j) == nil {
			return usageError{fmt.Errorf("--job %q: not a job in %s", j, cfg.Path)}
		}
	}
	st, err := openLedgerForRead(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	ms, err := report.Missing(ctx, st, cfg, o.jobs, from, now)
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(g.stdout, ms); err != nil {
			return err
		}
	} else if len(ms) == 0 {
		fmt.Fprintf(g.stdout, "no missing slots since %s\n", fmtTime(from, o.utc))
	} else {
		tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "JOB\tSLOT\tIN ITS ZONE")
		for _, m := range ms {
			_, name := runtrace.SplitID(m.Job)
			loc := cfg.Job(name).Location
			fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Job, fmtTime(m.Slot, o.utc), m.Slot.In(loc).Format("2006-01-02 15:04 MST"))
		}
		tw.Flush()
		fmt.Fprintf(g.stdout, "%d missing; `svc-ctl why JOB --at SLOT` explains one\n", len(ms))
	}
	if len(ms) > 0 {
		return errSilent
	}
	return nil
}
