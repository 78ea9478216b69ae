package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/watchdog"
)

type stopOptions struct{ json bool }

func (o *stopOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print the result as JSON")
}

func newStopCommand(g *globals) *cobra.Command {
	var o stopOptions
	cmd := &cobra.Command{
		Use:         "stop NAME",
		Annotations: trust(trustRun),
		Short:       "Stop a service and keep the watchdog from bringing it back",
		Long: `Pause the service with reason "stopped", so neither the agent nor the backstop
restarts it, then stop the recorded instance: every process of its tree (the
session or cgroup svc-ctl started it in), each proven to be ours by its pid and
start time right before it is signalled, so a reused PID is never signalled.
SIGTERM first, SIGKILL to whoever is left after stop_timeout; it prints how
many processes there were and how each ended. 'svc-ctl start NAME' undoes it.`,
		ValidArgsFunction: completeService(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runStop(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runStop(ctx context.Context, g *globals, o stopOptions, args []string) error {
	var rep watchdog.StopReport
	err := withSupervisor(g, func(sup *watchdog.Supervisor) (err error) {
		rep, err = sup.Stop(ctx, args[0])
		return err
	})
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(g.stdout, rep)
	}
	fmt.Fprintf(g.stdout, "%s: paused (reason \"stopped\"); %s\n", rep.Service, rep.Result)
	return nil
}
