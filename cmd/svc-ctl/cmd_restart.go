package main

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/control"
	"svcctl/watchdog"
)

type restartOptions struct {
	all  bool
	json bool
}

func (o *restartOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.all, "all", false, "every configured service")
	f.BoolVar(&o.json, "json", false, "print the results as JSON")
}

func newRestartCommand(g *globals) *cobra.Command {
	var o restartOptions
	cmd := &cobra.Command{
		Use:         "restart NAME... | --all",
		Annotations: trust(trustRun),
		Short:       "Stop each service's whole tree and start it again now, keeping the evidence",
		Long: `Restart each named service now, whatever its health check says, with the same
steps as a restart the watchdog decides: a snapshot line and runtime.log moved
to runtime.prev.log first, then every process of the recorded instance's tree
stopped (each identity-checked: a reused PID is never signalled; SIGTERM,
SIGKILL after stop_timeout), a new instance spawned, and its health awaited
up to start_timeout. It runs under the service's lock, shared with the agent,
so the agent never starts a second instance meanwhile. Like start, it clears
a pause, backoff and given-up. When the config file does not load, the
running agent (which still runs the config it loaded before) does the
restart, and the command says so.

  proxy: restarted (pid 4250, healthy after 1.3s); before: pid 4242 stopped (...)
  proxy: start-failed: <why>

The row is ok/restarted with cause manual ('svc-ctl runs' shows it).
Exit status: 0 when every service is running again, 1 when any is not.`,
		Args:              namesOrAll(&o.all),
		ValidArgsFunction: completeServices(g),
		RunE:              func(cmd *cobra.Command, args []string) error { return runRestart(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runRestart(ctx context.Context, g *globals, o restartOptions, names []string) error {
	return runServiceAct(ctx, g, serviceAct{kind: control.KindRestart, all: o.all, json: o.json,
		do: func(ctx context.Context, sup *watchdog.Supervisor, name string) watchdog.Result {
			r, _ := sup.Restart(ctx, name) // the name is a service (serviceNames)
			return r
		}}, names)
}
