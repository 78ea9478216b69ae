package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/control"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

type startOptions struct {
	all       bool
	scheduled bool
	json      bool
}

func (o *startOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.all, "all", false, "every configured service")
	f.BoolVar(&o.scheduled, "scheduled", false, "act as the watchdog: respect pause, backoff and given-up (for scheduled tasks)")
	f.BoolVar(&o.json, "json", false, "print the results as JSON")
}

func newStartCommand(g *globals) *cobra.Command {
	var o startOptions
	cmd := &cobra.Command{
		Use:         "start NAME... | --all",
		Annotations: trust(trustRun),
		Short:       "Run the watchdog cycle now: make sure each service is running and healthy",
		Long: `Run the L3 cycle for each named service now, under the same per-service lock as
the agent, and print one line each:

  proxy: already-running
  proxy: started (pid 4242, healthy after 1.3s)
  proxy: start-failed: <why>

A manual start states what you want: it clears a pause and ignores backoff and
given-up. When the config file does not load, the running agent (which still
runs the config it loaded before) does the start, and the command says so. With --scheduled it behaves as the watchdog does instead (respects a
pause, backoff and given-up); the backstop task uses that.

Exit status: 0 when every service is running, 1 when any is not.`,
		Args:              namesOrAll(&o.all),
		ValidArgsFunction: completeServices(g),
		RunE:              func(cmd *cobra.Command, args []string) error { return runStart(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runStart(ctx context.Context, g *globals, o startOptions, names []string) error {
	sup, closeRec, err := newSupervisor(g)
	if err != nil && !o.scheduled {
		var results []watchdog.Result
		if handed, herr := handOver(ctx, g, err, control.KindStart, control.ActArgs{Names: names, All: o.all}, &results); handed {
			if herr != nil {
				return herr
			}
			return printResults(g, results, o.json)
		}
	}
	if err != nil {
		return err
	}
	defer closeRec()
	names, err = serviceNames(sup, names, o.all)
	if err != nil {
		return err
	}
	if !o.scheduled { // the backstop's start is the check that the agent runs at all: never handed to it
		var results []watchdog.Result
		if handed, herr := toAgent(ctx, g, sup.Paths, control.KindStart, control.ActArgs{Names: names}, &results); handed {
			if herr != nil {
				return herr
			}
			return printResults(g, results, o.json)
		}
	}
	req := watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true}
	if o.scheduled {
		req = watchdog.Request{Trigger: runtrace.TriggerSchedule}
	}
	results := make([]watchdog.Result, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { results[i], _ = sup.Ensure(ctx, n, req) }) // every name was checked above
	}
	wg.Wait()
	return printResults(g, results, o.json)
}

func printResults(g *globals, results []watchdog.Result, asJSON bool) error {
	failed := false
	for _, r := range results {
		if r.Outcome == runtrace.OutcomeFailed {
			failed = true
		}
	}
	if asJSON {
		if err := writeJSON(g.stdout, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintf(g.stdout, "%s: %s\n", r.Service, r.Message)
			if r.RecordError != "" {
				fmt.Fprintf(g.stderr, "%s: warning: not recorded in run_trace: %s\n", r.Service, r.RecordError)
			}
		}
	}
	if failed {
		return errSilent
	}
	return nil
}

// serviceNames is the services a start or restart acts on: every one with
// --all, else the names given, each of which must be a service.
func serviceNames(sup *watchdog.Supervisor, names []string, all bool) ([]string, error) {
	if all {
		names = nil
		for _, s := range sup.Config().Services {
			names = append(names, s.Name)
		}
		return names, nil
	}
	for _, n := range names {
		if sup.Config().Service(n) == nil {
			return nil, unknownService(sup.Config(), n)
		}
	}
	return names, nil
}
