package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/install"
)

type uninstallOptions struct {
	user     bool
	backstop bool
	asJSON   bool
}

func newUninstallCommand(g *globals) *cobra.Command {
	var o uninstallOptions
	cmd := &cobra.Command{
		Use:         "uninstall [--user] [--backstop]",
		Annotations: trust(trustNone),
		Short:       "Stop and remove the agent service; --backstop removes the backstop task",
		Long: `Stop the agent service and remove it from the OS service manager. Services the
agent supervises keep running; the state directory (run history, logs,
snapshots) is kept. Not installed is not an error: "not installed; nothing to do".
No config is needed.

--user removes the per-user service; --backstop removes the backstop task
instead of the agent service.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runUninstall(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *uninstallOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.user, "user", false, "remove the per-user service instead of the system service")
	f.BoolVar(&o.backstop, "backstop", false, "remove the backstop scheduled task instead of the agent service")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
}

func runUninstall(ctx context.Context, g *globals, o uninstallOptions, _ []string) error {
	var res install.Result
	var err error
	if o.backstop {
		res, err = install.UninstallBackstop(ctx, install.BackstopOptions{User: o.user})
	} else {
		res, err = install.Uninstall(ctx, install.UninstallOptions{User: o.user})
		if err == nil {
			res.Notes = append(res.Notes, backstopNote(ctx, o.user)...)
		}
	}
	return reportInstall(g, o.asJSON, res, res, err)
}

// backstopNote: a backstop left behind would start the services again.
func backstopNote(ctx context.Context, user bool) []string {
	info, err := install.BackstopStatus(ctx, install.BackstopOptions{User: user})
	if err != nil || !info.Registered {
		return nil
	}
	flag := "--backstop"
	if user {
		flag = "--user --backstop"
	}
	return []string{fmt.Sprintf("the backstop is still registered (%s) and keeps starting the services; remove it with `svc-ctl uninstall %s`", info.Where, flag)}
}
