package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/watchdog"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type whyOptions struct {
	at        string
	run       int64
	json, utc bool
}

func (o *whyOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.at, "at", "", "answer for the run that covers this time (as runs prints it, RFC 3339, \"2026-11-29 09:30\", or 09:30 today) instead of the latest")
	f.Int64Var(&o.run, "run", 0, "answer for this run id (as runs and run print it)")
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newWhyCommand(g *globals) *cobra.Command {
	var o whyOptions
	cmd := &cobra.Command{
		Use:         "why NAME [--at T] | --run ID",
		Annotations: trust(trustRead),
		Short:       "Say why: the latest (or a given) run of a service or job, in plain words, with what its row holds",
		Long: `Answer from run_trace, for the run in question, in plain words:

  no row     never run: the slot has no row (schedule, registration, agent heartbeat)
  skipped    not run, and why: paused (by whom, until when), backoff, given-up, overlap
  failed     what broke: the exit code and the last lines of a job's output,
             why a service did not come up
  ok         what happened: a restart with its cause and by whom (watchdog,
             person, reload), a first start, a job that completed

and where to look next (the snapshot kept before a restart, the logs).

NAME is a service (its latest cycle), a job (its latest run, or its latest due
slot when that has no row), or watchdog:NAME / job:NAME; a name the config no
longer has is answered from its history. --at answers for the run that
covers that instant: any time 'runs' prints (a time to the second covers that
second), RFC 3339 as --json prints it, a local date and time, or a time of day
(today, in the local zone). --run answers for one row by its id.

Exit status: 0 when the answer is not a failure; 1 when it is (a failed run,
a service given up or backing off after failed starts, a slot with no row);
2 for a name that is neither a service nor a job.`,
		Example: `  svc-ctl why proxy
  svc-ctl why daily-pull --at 09:30
  svc-ctl why --run 4242`,
		ValidArgsFunction: completeName(g),
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			switch {
			case o.run != 0 && len(args) > 0:
				return errors.New("--run names the row itself: give no NAME with it")
			case o.run != 0 && o.at != "":
				return errors.New("--run and --at both choose the row: pass one")
			case o.run == 0 && len(args) != 1:
				return errors.New("name a service or job (or pass --run ID)")
			case o.run < 0:
				return fmt.Errorf("--run %d: want a run id as 'svc-ctl runs' prints it", o.run)
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error { return runWhy(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runWhy(ctx context.Context, g *globals, o whyOptions, args []string) error {
	now := time.Now()
	at, width, err := parseInstant("at", o.at, now)
	if err != nil {
		return err
	}
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	st, err := openLedgerForRead(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	var d *report.Diagnosis
	if o.run != 0 {
		d, err = report.WhyRun(ctx, st, cfg, o.run)
		if errors.Is(err, report.ErrNoSuchRun) {
			return usageError{err}
		}
	} else {
		d, err = report.WhyAt(ctx, st, cfg, args[0], at, width, now)
		if errors.Is(err, watchdog.ErrUnknownName) {
			return unknownName(cfg, args[0])
		}
	}
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(g.stdout, d); err != nil {
			return err
		}
	} else {
		printDiagnosis(g.stdout, d, o.utc)
	}
	if d.Failure {
		return errSilent
	}
	return nil
}

func printDiagnosis(w io.Writer, d *report.Diagnosis, utc bool) {
	fmt.Fprintf(w, "%s", d.Target)
	if d.Slot != nil {
		fmt.Fprintf(w, ", slot %s", fmtTime(*d.Slot, utc))
	}
	if d.Removed {
		fmt.Fprint(w, " (no longer in the config: its history)")
	}
	fmt.Fprintln(w)
	if r := d.Row; r != nil {
		fmt.Fprintf(w, "  row:    #%d %s, trigger %s, started %s", r.ID, r.Verdict(), r.Trigger, fmtTime(r.StartedAt, utc))
		if !r.FinishedAt.IsZero() {
			fmt.Fprintf(w, ", took %s", r.Duration.Round(time.Millisecond))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "  row:    none")
	}
	fmt.Fprintf(w, "  answer: %s\n", d.Means)
	if len(d.Output) > 0 {
		fmt.Fprintln(w, "  its last output:")
		for _, l := range d.Output {
			fmt.Fprintf(w, "    | %s\n", strings.TrimRight(l, "\n"))
		}
	}
	if ps := d.Pending; ps != nil {
		fmt.Fprintf(w, "  note:   the newest slot, %s, came due but is still within its grace (until %s): not missing yet\n",
			fmtTime(ps.Slot, utc), fmtTime(ps.GraceUntil, utc))
	}
	if s := d.Snapshot; s != nil {
		fmt.Fprintf(w, "  evidence kept before it (snapshot of %s): %s\n", fmtTime(s.Time, utc), noProgress(s.NoProgressMS))
		for _, l := range lastN(s.LogTail, 5) {
			fmt.Fprintf(w, "    | %s\n", strings.TrimRight(l, "\n"))
		}
	}
	if len(d.LookNext) > 0 {
		fmt.Fprintln(w, "  look next:")
		for _, h := range d.LookNext {
			fmt.Fprintf(w, "    - %s\n", h)
		}
	}
}

func lastN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

// restartWords says whose restart a row was, for a line of runs.
func restartWords(r runtrace.Run) string {
	if by := runtrace.RestartBy(r); by != "" {
		return "restart by " + by
	}
	return ""
}
