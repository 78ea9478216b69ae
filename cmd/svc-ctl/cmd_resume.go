package main

import (
	"fmt"

	"svcctl/watchdog"

	"github.com/spf13/cobra"
)

func init() { addCommand(newResumeCommand) }

func newResumeCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "resume NAME",
		Annotations: trust(trustRun),
		Short:       "Remove a pause and clear given-up, so the watchdog acts again",
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rep watchdog.ResumeReport
			err := withSupervisor(g, func(sup *watchdog.Supervisor) (err error) {
				rep, err = sup.Resume(ctxOf(cmd.Context()), args[0])
				return err
			})
			if err != nil {
				return err
			}
			if asJSON {
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
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
