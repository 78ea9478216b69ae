package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"svcctl/report"
	"svcctl/watchdog"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type whyOptions struct {
	at        string
	json, utc bool
}

func (o *whyOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.at, "at", "", "diagnose the slot or cycle at or before this time instead of the latest")
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newWhyCommand(g *globals) *cobra.Command {
	var o whyOptions
	cmd := &cobra.Command{
		Use:         "why NAME",
		Annotations: trust(trustRead),
		Short:       "Diagnose the latest (or a given) slot or cycle: no row, skipped, failed or ok",
		Long: `Answer from run_trace, for the slot or cycle in question:

  no row          never triggered            schedule and registration, agent heartbeat, watchdog.last.json
  skipped+reason  a precondition said no     the lock, pause, dependency or window the reason names
  failed+reason   the chain broke midway     the downstream, proxy settings, exit code in detail
  ok              our side completed         delivery and reconciliation downstream

NAME is a service (its latest cycle), a job (its latest due slot), or
watchdog:NAME / job:NAME.`,
		Example: `  svc-ctl why watchdog:proxy
  svc-ctl why job:daily-pull --at "2026-11-28 09:30"`,
		ValidArgsFunction: completeName(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runWhy(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runWhy(ctx context.Context, g *globals, o whyOptions, args []string) error {
	at, err := parseTimeFlag("at", o.at)
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
	d, err := report.Why(ctx, st, cfg, args[0], at, time.Now())
	if errors.Is(err, watchdog.ErrUnknownName) {
		return unknownName(cfg, args[0])
	}
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(g.stdout, d)
	}
	printDiagnosis(g.stdout, d, o.utc)
	return nil
}

func printDiagnosis(w io.Writer, d *report.Diagnosis, utc bool) {
	fmt.Fprintf(w, "%s", d.Target)
	if d.Slot != nil {
		fmt.Fprintf(w, ", slot %s", fmtTime(*d.Slot, utc))
	}
	fmt.Fprintln(w)
	if r := d.Row; r != nil {
		fmt.Fprintf(w, "  row:   #%d %s, trigger %s, started %s", r.ID, r.Verdict(), r.Trigger, fmtTime(r.StartedAt, utc))
		if !r.FinishedAt.IsZero() {
			fmt.Fprintf(w, ", took %s", r.Duration.Round(time.Millisecond))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "  row:   none")
	}
	fmt.Fprintf(w, "  means: %s\n", d.Means)
	if ps := d.Pending; ps != nil {
		fmt.Fprintf(w, "  note:  the newest slot, %s, came due but is still within its grace (until %s): not missing yet\n",
			fmtTime(ps.Slot, utc), fmtTime(ps.GraceUntil, utc))
	}
	if len(d.LookNext) > 0 {
		fmt.Fprintln(w, "  look next:")
		for _, h := range d.LookNext {
			fmt.Fprintf(w, "    - %s\n", h)
		}
	}
	if s := d.Snapshot; s != nil {
		fmt.Fprintf(w, "  snapshot at %s: reason %q, %s\n", fmtTime(s.Time, utc), s.Reason, noProgress(s.NoProgressMS))
		for _, l := range lastN(s.LogTail, 5) {
			fmt.Fprintf(w, "    | %s\n", strings.TrimRight(l, "\n"))
		}
	}
}

func lastN(xs []string, n int) []string {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}
