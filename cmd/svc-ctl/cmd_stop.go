package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/control"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

type stopOptions struct{ all, json bool }

func (o *stopOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.all, "all", false, "every configured service")
	f.BoolVar(&o.json, "json", false, "print the result as JSON (an array for several names or --all)")
}

func newStopCommand(g *globals) *cobra.Command {
	var o stopOptions
	cmd := &cobra.Command{
		Use:         "stop NAME... | --all",
		Annotations: trust(trustRun),
		Short:       "Stop services and keep the watchdog from bringing them back",
		Long: `Pause each service with reason "stopped", so neither the agent nor the backstop
restarts it, then stop the recorded instance: every process of its tree (the
session or cgroup svc-ctl started it in), each proven to be ours by its pid and
start time right before it is signalled, so a reused PID is never signalled.
The service's stop_command first when it has one; then its stop_signal
(SIGTERM by default) to every member (kill_mode "tree") or to its main process
only (kill_mode "main"); SIGKILL to whoever is left after stop_timeout. It
prints how many processes there were and how each ended, then looks again:
exit status 1 when a member still runs, or when something still holds a
local health port (named, with whether it ever was a member).
'svc-ctl start NAME' undoes it.

A service a reload removed from the config while its processes were kept
(reload --keep-removed) is stopped the same way, identity-checked, for as long
as its instance lives.`,
		ValidArgsFunction: completeServices(g),
		Args:              namesOrAll(&o.all),
		RunE:              func(cmd *cobra.Command, args []string) error { return runStop(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runStop(ctx context.Context, g *globals, o stopOptions, names []string) error {
	sup, closeRec, err := newSupervisor(g)
	if err != nil {
		var reps []watchdog.StopReport
		if handed, herr := handOver(ctx, g, err, control.KindStop, control.ActArgs{Names: names, All: o.all}, &reps); handed {
			if herr != nil {
				return herr
			}
			return printStops(g, o, reps, make([]error, len(reps)), func(string) bool { return true })
		}
		return err
	}
	defer closeRec()
	cfg := sup.Config()
	if o.all {
		names = svcNames(cfg)
	}
	for _, n := range names {
		if cfg.Service(n) == nil && removedRecord(sup.Paths, n) == nil {
			return unknownService(cfg, n)
		}
	}
	reps := make([]watchdog.StopReport, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() {
			if cfg.Service(n) == nil {
				reps[i], errs[i] = stopRemoved(ctx, sup, n)
			} else {
				reps[i], errs[i] = sup.Stop(ctx, n)
			}
			reps[i].Service = n
		})
	}
	wg.Wait()
	return printStops(g, o, reps, errs, func(n string) bool { return cfg.Service(n) != nil })
}

// printStops prints what each stop did; configured says whether a name is
// a service of the config (else one a reload removed).
func printStops(g *globals, o stopOptions, reps []watchdog.StopReport, errs []error, configured func(string) bool) error {
	if o.json {
		var v any = reps
		if len(reps) == 1 && !o.all {
			v = reps[0] // one NAME: one object, as before several could be named
		}
		if err := writeJSON(g.stdout, v); err != nil {
			return err
		}
	}
	for i, r := range reps {
		switch {
		case errs[i] != nil:
			fmt.Fprintf(g.stderr, "%s: not stopped: %v\n", r.Service, errs[i])
		case o.json:
		case !configured(r.Service):
			fmt.Fprintf(g.stdout, "%s: removed from the config; %s\n", r.Service, r.Result)
		default:
			how := r.Result
			switch {
			case !r.Stopped():
				how = "NOT stopped: " + how + "; something still runs"
			case !strings.HasPrefix(how, "stopped"):
				how = "stopped; " + how
			}
			fmt.Fprintf(g.stdout, "%s: %s; nothing brings it back until 'svc-ctl start %s'\n", r.Service, how, r.Service)
		}
		if errs[i] == nil && !o.json {
			if c := r.StopCommand; c != nil {
				fmt.Fprintf(g.stdout, "  stop_command %s after %dms\n", c.Exit, c.TookMS)
			}
			for _, l := range r.Left {
				fmt.Fprintf(g.stdout, "  still running: %s\n", l)
			}
		}
	}
	for i, r := range reps {
		if errs[i] == nil && !r.Stopped() {
			return errSilent // a stop that did not happen: what lives is named above
		}
	}
	if err := errors.Join(errs...); err != nil {
		return errSilent
	}
	return nil
}

// removedRecord is the record a reload --keep-removed left for name, or nil.
func removedRecord(p state.Paths, name string) *state.Removed {
	r, err := state.ReadRemoved(p, name)
	if err != nil {
		return nil
	}
	return r
}

// stopRemoved stops the instance a reload left running for a service the
// config no longer has: identity-checked, the whole tree, with the
// stop_timeout it had; recorded ok/stopped; the record goes once the
// instance is gone.
func stopRemoved(ctx context.Context, sup *watchdog.Supervisor, name string) (watchdog.StopReport, error) {
	rec := removedRecord(sup.Paths, name)
	svc := &config.Service{Name: name, StopTimeout: rec.StopWait(), StartTimeout: rec.StopWait()}
	rep, err := sup.StopInstance(ctx, svc)
	if err != nil {
		return rep, err
	}
	if rep.PID != 0 && len(rep.Members) > 0 {
		now := time.Now().UTC()
		detail := map[string]any{"why": "removed from the config; stopped by hand", "pid": rep.PID, "members": rep.Members,
			"message": "removed from the config: " + rep.Result, "by": state.Who()}
		if id, err := sup.Rec.Begin(ctx, runtrace.WatchdogID(name), runtrace.TriggerManual, time.Time{}, now); err == nil {
			sup.Rec.Finish(ctx, id, runtrace.OutcomeOK, runtrace.ReasonStopped, detail, time.Now().UTC())
		}
	}
	return rep, state.ForgetRemoved(sup.Paths, name)
}
