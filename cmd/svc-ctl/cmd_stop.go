package main

import (
	"fmt"

	"svcctl/watchdog"

	"github.com/spf13/cobra"
)

func init() { addCommand(newStopCommand) }

func newStopCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "stop NAME",
		Annotations: trust(trustRun),
		Short:       "Stop a service and keep the watchdog from bringing it back",
		Long: `Pause the service with reason "stopped", so neither the agent nor the backstop
restarts it, then stop the recorded instance — only if its identity (pid,
create time and executable) is proven; a reused PID is never signalled.
SIGTERM first, SIGKILL after stop_timeout. 'svc-ctl start NAME' undoes it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rep watchdog.StopReport
			err := withSupervisor(g, func(sup *watchdog.Supervisor) (err error) {
				rep, err = sup.Stop(ctxOf(cmd.Context()), args[0])
				return err
			})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, rep)
			}
			fmt.Fprintf(g.stdout, "%s: paused (reason \"stopped\"); %s\n", rep.Service, rep.Result)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
