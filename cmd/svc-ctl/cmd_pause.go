package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/control"
	"svcctl/state"
	"svcctl/watchdog"
)

type pauseOptions struct {
	forStr, reason string
	all, json, utc bool
}

func (o *pauseOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.forStr, "for", "", "end the pause by itself after this long (e.g. 30m, 2h, 1d)")
	f.StringVar(&o.reason, "reason", "paused by hand", "why, for the record")
	f.BoolVar(&o.all, "all", false, "every configured service and job")
	f.BoolVar(&o.json, "json", false, "print the sentinel as JSON (an array for several names or --all)")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newPauseCommand(g *globals) *cobra.Command {
	var o pauseOptions
	cmd := &cobra.Command{
		Use:         "pause NAME... | --all",
		Annotations: trust(trustRun),
		Short:       "Tell the watchdog to hold off a service or job (it records skipped/paused)",
		Long: `Write the pause sentinel: the watchdog still cycles, records skipped/paused, and
does nothing else. --for makes the pause end by itself; without it the pause
lasts until 'svc-ctl resume' (and 'svc-ctl verify' warns about a pause older
than 24 h without an expiry).`,
		ValidArgsFunction: completeNames(g),
		Args:              namesOrAll(&o.all),
		RunE:              func(cmd *cobra.Command, args []string) error { return runPause(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runPause(ctx context.Context, g *globals, o pauseOptions, args []string) error {
	var d time.Duration
	if o.forStr != "" {
		var err error
		if d, err = config.ParseDuration(o.forStr); err != nil || d <= 0 {
			return usageError{durationFlagError("--for", o.forStr, err, "30m, 2h or 1d")}
		}
	}
	sup, closeRec, err := newSupervisor(g)
	if err != nil {
		var done []control.PauseDone
		if handed, herr := handOver(ctx, g, err, control.KindPause, control.ActArgs{Names: args, All: o.all, For: d, Why: o.reason}, &done); handed {
			if herr != nil {
				return herr
			}
			return printPauses(g, o, done)
		}
		return err
	}
	defer closeRec()
	names, err := targetNames(sup.Config(), args, o.all)
	if err != nil {
		return usageError{err}
	}
	var done []control.PauseDone
	for _, n := range names {
		p, err := sup.PauseTarget(n, d, o.reason)
		if err != nil {
			return err
		}
		done = append(done, control.PauseDone{Name: n, Pause: p})
	}
	return printPauses(g, o, done)
}

func printPauses(g *globals, o pauseOptions, done []control.PauseDone) error {
	if o.json {
		if len(done) == 1 && !o.all {
			return writeJSON(g.stdout, done[0].Pause)
		}
		ps := make([]state.Pause, len(done))
		for i := range done {
			ps[i] = done[i].Pause
		}
		return writeJSON(g.stdout, ps)
	}
	for _, d := range done {
		until := "until 'svc-ctl resume " + d.Name + "'"
		if d.Pause.Until != nil {
			until = "until " + fmtTime(*d.Pause.Until, o.utc)
		}
		fmt.Fprintf(g.stdout, "%s: paused %s (reason: %s)\n", d.Name, until, d.Pause.Reason)
	}
	return nil
}

// targetNames is what a verb that takes services and jobs acts on: every
// one with --all, else the names given, each checked first (a typo acts on
// nothing).
func targetNames(cfg *config.Config, names []string, all bool) ([]string, error) {
	if all {
		return allNames(cfg), nil
	}
	for _, n := range names {
		if cfg.Service(n) == nil && cfg.Job(n) == nil {
			return nil, watchdog.UnknownTarget(cfg, n)
		}
	}
	return names, nil
}
