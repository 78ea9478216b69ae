// Command svc-ctl is both the agent (an OS service) and the command line people
// use. It stays thin: parse flags, call a package, print. Every verb lives in
// its own cmd_VERB.go as newVERBCommand (the cobra command and its flags),
// VERBOptions and runVERB(ctx, globals, options, args); newRootCommand lists
// them. Exit codes are mapped in one place (errors.go), and only main exits.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "time/tzdata" // zones resolve on hosts without zoneinfo (Windows)

	"github.com/spf13/cobra"

	"svcctl/config"
	"svcctl/proc"
)

// version is set by -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if group := os.Getenv(proc.CtrlBreakEnv); group != "" {
		// The CTRL_BREAK helper a Windows stop starts (stop_signal =
		// "SIGBREAK"): it does that and nothing else.
		os.Exit(proc.CtrlBreakMain(group))
	}
	proc.CloseInheritedOnExec() // what started svc-ctl left open is not passed on to services
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// globals are the flags every command takes, and where it prints.
type globals struct {
	configPath string
	stdout     io.Writer
	stderr     io.Writer
	trust      string         // the running command's level (trust.go)
	cfg        *config.Config // loaded once per command run
	// broken is why the config file does not load, when a reader answers
	// from the state dir alone (degraded.go).
	broken error
	// fileItself: the command's subject is the config file itself (config
	// check), never the state dir's answer a reader as root gives for a
	// file it cannot trust (untrusted.go).
	fileItself bool
}

func newRootCommand(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "svc-ctl",
		Short: "Keep a workstation's background services alive and make every failure visible",
		Long: `svc-ctl supervises background services and scheduled jobs on a workstation.

L1 installs the agent as an OS service and proves it really started since boot.
L2 keeps the agent alive through its own panics and records what they broke.
L3 is a periodic, idempotent watchdog that judges services by a health check,
keeps the evidence before every restart, and records every run in run_trace.`,
		Annotations:   trust(trustNone),
		Args:          usageArgs(cobra.NoArgs), // `svc-ctl bogus`: an unknown command, exit 2
		RunE:          func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version, as people type it (pm2 --version, supervisorctl version):
	// the same line as `svc-ctl version`.
	root.Version = version
	root.SetVersionTemplate(versionLine() + "\n")
	root.PersistentFlags().StringVar(&g.configPath, "config", "", "config file (default: $SVC_CTL_CONFIG, else the platform's svc-ctl.toml)")
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = declareTrust(g)
	root.AddCommand(
		newAgentCommand(g),
		newInstallCommand(g),
		newUninstallCommand(g),
		newStartCommand(g),
		newStopCommand(g),
		newRestartCommand(g),
		newReloadCommand(g),
		newPauseCommand(g),
		newResumeCommand(g),
		newStatusCommand(g),
		newRunsCommand(g),
		newMissingCommand(g),
		newWhyCommand(g),
		newScheduleCommand(g),
		newRunCommand(g),
		newExecCommand(g),
		newSnapshotCommand(g),
		newLogsCommand(g),
		newVerifyCommand(g),
		newDrillCommand(g),
		newNotifyCommand(g),
		newUICommand(g),
		newConfigCommand(g),
		newInitCommand(g),
		newDemoCommand(g),
		newDemoServiceCommand(g),
		newDemoJobCommand(g),
		newVersionCommand(g),
	)
	return root
}

// run executes the command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr}
	root := newRootCommand(g)
	root.SetArgs(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd, err := root.ExecuteContextC(ctx)
	verb := "svc-ctl"
	if cmd != nil {
		verb = cmd.CommandPath()
	}
	return exitCode(err, stderr, verb)
}
