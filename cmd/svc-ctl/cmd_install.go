package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/install"
)

type installOptions struct {
	user     bool
	backstop bool
	every    string
	asJSON   bool
}

func newInstallCommand(g *globals) *cobra.Command {
	var o installOptions
	cmd := &cobra.Command{
		Use:         "install [--user] [--backstop [--every 10m]]",
		Annotations: trust(trustNone),
		Short:       "Install the agent as an OS service and start it; --backstop registers the backstop task",
		Long: `Install the agent as an OS service (systemd, SysV init, OpenRC, launchd or the
Windows SCM) that runs "<this binary> agent --config <config> --mode service",
and start it. The config is resolved and validated first: a broken config
installs nothing. Running install again is safe: it restarts the agent, or
updates the service when the binary, config path or drain_timeout changed
(that is also how to upgrade: replace the binary, run install again).

--user installs a per-user service started at login (systemd --user, a launchd
LaunchAgent) for the user who runs the command, without sudo.

--backstop registers an OS scheduled task, independent of the agent, that runs
"svc-ctl start --all" every --every (systemd timer, /etc/cron.d, launchd, Task
Scheduler), runs it once at once, and checks that watchdog.last.json was
updated by that run: registered is not running.

Exit status: 0 done; 1 installed but not seen running (or the backstop's first
run left no evidence); 2 a usage or configuration error (nothing was changed).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runInstall(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *installOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.user, "user", false, "install a per-user service started at login instead of the system service")
	f.BoolVar(&o.backstop, "backstop", false, "register the backstop scheduled task instead of the agent service")
	f.StringVar(&o.every, "every", "", "with --backstop: how often it runs (default 10m)")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
}

func runInstall(ctx context.Context, g *globals, o installOptions, _ []string) error {
	if o.every != "" && !o.backstop {
		return usageError{errors.New("--every only applies with --backstop")}
	}
	if !o.backstop {
		res, err := install.Install(ctx, install.Request{ConfigFlag: g.configPath, User: o.user})
		return reportInstall(g, o.asJSON, res, res, err)
	}
	req := install.BackstopRequest{ConfigFlag: g.configPath, User: o.user}
	if o.every != "" {
		d, err := config.ParseDuration(o.every)
		if err != nil {
			return usageError{fmt.Errorf("--every: %w", err)}
		}
		req.Every = d
	}
	res, err := install.InstallBackstop(ctx, req)
	return reportInstall(g, o.asJSON, res, res.Result, err)
}

// reportInstall prints what was done (also when it then failed: a person
// must know what is now installed) and maps the error to an exit code.
func reportInstall(g *globals, asJSON bool, v any, res install.Result, err error) error {
	if asJSON && err == nil {
		if werr := writeJSON(g.stdout, v); werr != nil {
			return werr
		}
	} else if err == nil {
		printResult(g.stdout, res)
	} else {
		printWarnings(g.stderr, res.Warnings)
		printNotes(g.stderr, res.Notes)
	}
	return classifyInstallError(err)
}

func printResult(w io.Writer, res install.Result) {
	fmt.Fprintln(w, res.Message)
	if res.Action != "none" {
		if res.Path != "" {
			fmt.Fprintf(w, "  definition: %s\n", res.Path)
		}
		if len(res.Command) > 0 {
			fmt.Fprintf(w, "  runs:       %s\n", strings.Join(res.Command, " "))
		}
	}
	printWarnings(w, res.Warnings)
	printNotes(w, res.Notes)
}

// printWarnings prints each optional setting the service manager did not
// take, in verify's WARN form: the install went on without it.
func printWarnings(w io.Writer, warns []string) {
	for _, s := range warns {
		fmt.Fprintf(w, "WARN  %s\n", s)
	}
}

func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// classifyInstallError: a config or usage problem changed nothing (exit 2);
// anything else happened while changing the system (exit 1).
func classifyInstallError(err error) error {
	var ce *install.ConfigError
	var ue *install.UsageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return configError{err}
	case errors.As(err, &ue):
		return usageError{err}
	}
	return err // exit 1: it failed while changing the system
}
