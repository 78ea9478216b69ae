package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/state"
	"svcctl/watchdog"
)

type pauseOptions struct {
	forStr, reason string
	json, utc      bool
}

func (o *pauseOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.forStr, "for", "", "end the pause by itself after this long (e.g. 30m, 2h, 1d)")
	f.StringVar(&o.reason, "reason", "paused by hand", "why, for the record")
	f.BoolVar(&o.json, "json", false, "print the sentinel as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newPauseCommand(g *globals) *cobra.Command {
	var o pauseOptions
	cmd := &cobra.Command{
		Use:         "pause NAME",
		Annotations: trust(trustRun),
		Short:       "Tell the watchdog to hold off a service or job (it records skipped/paused)",
		Long: `Write the pause sentinel: the watchdog still cycles, records skipped/paused, and
does nothing else. --for makes the pause end by itself; without it the pause
lasts until 'svc-ctl resume' (and 'svc-ctl verify' warns about a pause older
than 24 h without an expiry).`,
		ValidArgsFunction: completeName(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runPause(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runPause(_ context.Context, g *globals, o pauseOptions, args []string) error {
	var d time.Duration
	if o.forStr != "" {
		var err error
		if d, err = config.ParseDuration(o.forStr); err != nil || d <= 0 {
			return usageError{durationFlagError("--for", o.forStr, err, "30m, 2h or 1d")}
		}
	}
	var p state.Pause
	err := withSupervisor(g, func(sup *watchdog.Supervisor) (err error) {
		p, err = sup.PauseTarget(args[0], d, o.reason)
		return err
	})
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(g.stdout, p)
	}
	until := "until 'svc-ctl resume " + args[0] + "'"
	if p.Until != nil {
		until = "until " + fmtTime(*p.Until, o.utc)
	}
	fmt.Fprintf(g.stdout, "%s: paused %s (reason: %s)\n", args[0], until, p.Reason)
	return nil
}
