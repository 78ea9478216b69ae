// Command svc-ctl is both the agent (an OS service) and the command line people
// use. It stays thin: parse flags, call a package, print. Exit codes are mapped
// in one place, here: 0 success / all healthy, 1 a check failed, 2 usage or
// configuration error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "time/tzdata" // zones resolve on hosts without zoneinfo (Windows)

	"github.com/spf13/cobra"

	"svcctl/config"
)

// version is set by -ldflags "-X main.version=...".
var version = "dev"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// globals are the flags every command takes.
type globals struct {
	configPath string
	stdout     io.Writer
	stderr     io.Writer
	trust      string         // the running command's level (trust.go)
	cfg        *config.Config // loaded once per command run
}

// commandFactories is filled by each cmd_*.go file's init, so that commands
// live one per file and none of them edits a shared list.
var commandFactories []func(g *globals) *cobra.Command

func addCommand(f func(g *globals) *cobra.Command) { commandFactories = append(commandFactories, f) }

func newRootCommand(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "svc-ctl",
		Short: "Keep a workstation's background services alive and make every failure visible",
		Long: `svc-ctl supervises background services and scheduled jobs on a workstation.

L1 installs the agent as an OS service and proves it really started since boot.
L2 keeps the agent alive through its own panics and records what they broke.
L3 is a periodic, idempotent watchdog that judges services by a health check,
keeps the evidence before every restart, and records every run in run_trace.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.configPath, "config", "", "config file (default: $SVC_CTL_CONFIG, else the platform's svc-ctl.toml)")
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = declareTrust(g)
	for _, f := range commandFactories {
		root.AddCommand(f(g))
	}
	return root
}

func run(args []string, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr}
	root := newRootCommand(g)
	root.SetArgs(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	code := exitCode(err)
	var passthrough exitStatus
	if !errors.Is(err, errSilent) && !errors.As(err, &passthrough) {
		fmt.Fprintf(stderr, "svc-ctl: %v\n", err)
	}
	if code == 2 && isUsage(err) {
		fmt.Fprintln(stderr, "Run 'svc-ctl --help' for usage.")
	}
	return code
}
