package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/control"
	"svcctl/watchdog"
)

type resumeOptions struct{ all, json bool }

func (o *resumeOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.all, "all", false, "every configured service and job")
	f.BoolVar(&o.json, "json", false, "print the result as JSON (an array for several names or --all)")
}

func newResumeCommand(g *globals) *cobra.Command {
	var o resumeOptions
	cmd := &cobra.Command{
		Use:               "resume NAME... | --all",
		Annotations:       trust(trustRun),
		Short:             "Remove a pause and clear given-up, so the watchdog acts again",
		ValidArgsFunction: completeNames(g),
		Args:              namesOrAll(&o.all),
		RunE:              func(cmd *cobra.Command, args []string) error { return runResume(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runResume(ctx context.Context, g *globals, o resumeOptions, args []string) error {
	var reps []watchdog.ResumeReport
	sup, closeRec, err := newSupervisor(g)
	if err != nil {
		if handed, herr := handOver(ctx, g, err, control.KindResume, control.ActArgs{Names: args, All: o.all}, &reps); handed {
			if herr != nil {
				return herr
			}
			return printResumes(g, o, reps)
		}
		return err
	}
	defer closeRec()
	names, err := targetNames(sup.Config(), args, o.all)
	if err != nil {
		return usageError{err}
	}
	for _, n := range names {
		rep, err := sup.Resume(ctx, n)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	return printResumes(g, o, reps)
}

func printResumes(g *globals, o resumeOptions, reps []watchdog.ResumeReport) error {
	if o.json {
		if len(reps) == 1 && !o.all {
			return writeJSON(g.stdout, reps[0])
		}
		return writeJSON(g.stdout, reps)
	}
	for _, rep := range reps {
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
	}
	return nil
}
