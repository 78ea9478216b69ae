package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Every command declares what it does with the configuration, as the
// annotation trustKey. A command that runs, starts, stops or signals what the
// config names ("run") gets its config only through config.LoadToRun and its
// state dir only after state.Check: a config, env_file or state dir that
// another user can write is refused before anything happens (drill
// once skipped the check start applied). The root's
// PersistentPreRunE sets the level for the command being run; loadConfig
// applies it, so a "run" verb cannot reach an unchecked config by calling the
// wrong helper. TestEveryVerbDeclaresTrust fails when a command is added
// without a level, and TestPrivilegedVerbs when a privileged verb is not
// "run".
const trustKey = "svcctl.trust"

const (
	trustRun  = "run"  // runs or signals what the config names: checked load, checked state dir
	trustRead = "read" // reads the config and the ledger, changes nothing
	trustNone = "none" // does not use the --config file
)

// trust is the Annotations value declaring a command's level.
func trust(level string) map[string]string { return map[string]string{trustKey: level} }

// declareTrust is the root's PersistentPreRunE: it records the running
// command's level, and refuses a command that declares none.
func declareTrust(g *globals) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		level := cmd.Annotations[trustKey]
		if builtinCompletion(cmd) {
			level = trustNone // cobra's own: they print a script or names, and read the config only as a reader would
		}
		switch level {
		case trustRun, trustRead, trustNone:
			g.trust = level
			return nil
		}
		return fmt.Errorf("internal error: command %q does not declare what it does with the config (annotation %s)", cmd.CommandPath(), trustKey)
	}
}

// builtinCompletion reports whether cmd is one of the commands cobra adds
// for shell completion (`completion bash|zsh|fish|powershell`, and the
// hidden `__complete` the shells call), which newRootCommand cannot
// annotate: cobra creates them when it runs.
func builtinCompletion(cmd *cobra.Command) bool {
	switch cmd.Name() {
	case cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return true
	}
	return cmd.HasParent() && cmd.Parent().Name() == "completion" && cmd.Parent().HasParent() && !cmd.Parent().Parent().HasParent()
}
