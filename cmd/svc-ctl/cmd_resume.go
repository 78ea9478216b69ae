package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/watchdog"
)

type resumeOptions struct{ json bool }

func (o *resumeOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print the result as JSON")
}

func newResumeCommand(g *globals) *cobra.Command {
	var o resumeOptions
	cmd := &cobra.Command{
		Use:               "resume NAME",
		Annotations:       trust(trustRun),
		Short:             "Remove a pause and clear given-up, so the watchdog acts again",
		ValidArgsFunction: completeName(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runResume(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runResume(ctx context.Context, g *globals, o resumeOptions, args []string) error {
	var rep watchdog.ResumeReport
	err := withSupervisor(g, func(sup *watchdog.Supervisor) (err error) {
		rep, err = sup.Resume(ctx, args[0])
		return err
	})
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(g.stdout, rep)
	}
	switch {
	case rep.WasPaused && rep.ClearedGiveUp:
		fmt.Fprintf(g.stdout, "%s: resumed; given-up cleared\n", rep.Name)
	case rep.WasPaused:
		fmt.Fprintf(g.stdout, "%s: resumed\n", rep.Name)
	case rep.ClearedGiveUp:
		fmt.Fprintf(g.stdout, "%s: was not paused; given-up cleared\n", rep.Name)
	default:
		fmt.Fprintf(g.stdout, "%s: was not paused; nothing to do\n", rep.Name)
	}
	return nil
}
