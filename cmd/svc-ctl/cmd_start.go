package main

import (
	"context"

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
	req := watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true}
	if o.scheduled {
		req = watchdog.Request{Trigger: runtrace.TriggerSchedule}
	}
	return runServiceAct(ctx, g, serviceAct{kind: control.KindStart, all: o.all, json: o.json, alone: o.scheduled,
		do: func(ctx context.Context, sup *watchdog.Supervisor, name string) watchdog.Result {
			r, _ := sup.Ensure(ctx, name, req) // the name is a service (serviceNames)
			return r
		}}, names)
}
