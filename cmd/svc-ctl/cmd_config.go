package main

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/state"
)

// newConfigCommand is the `config` group; `config check` is its verb.
func newConfigCommand(g *globals) *cobra.Command {
	cmd := newGroupCommand("config", "Work with the configuration file")
	cmd.AddCommand(newConfigCheckCommand(g))
	return cmd
}

type configCheckOptions struct{ json bool }

func (o *configCheckOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print as JSON")
}

func newConfigCheckCommand(g *globals) *cobra.Command {
	var o configCheckOptions
	cmd := &cobra.Command{
		Use:         "check",
		Annotations: trust(trustRead),
		Short:       "Validate the config and print it resolved (defaults applied, env values redacted)",
		Args:        usageArgs(cobra.NoArgs),
		RunE:        func(cmd *cobra.Command, args []string) error { return runConfigCheck(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runConfigCheck(_ context.Context, g *globals, o configCheckOptions, _ []string) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	if len(cfg.UnreadEnvFiles) > 0 {
		// The file is valid as far as this process can see; the rest is a
		// check that could not be made (exit 1), not a broken config.
		return state.Denied(cfg.UnreadEnvFiles[0], fs.ErrPermission)
	}
	if !config.UserMode() {
		// What the agent and every privileged verb check before they run
		// anything the file names: a file they would refuse is not OK
		// (else config check says OK, then reload refuses the file).
		if err := cfg.CheckTrusted(); err != nil {
			return configError{fmt.Errorf("%s loads, but a privileged svc-ctl (the agent, start, reload) refuses it: %w", cfg.Path, err)}
		}
	}
	r := cfg.Redacted()
	if o.json {
		return writeJSON(g.stdout, r)
	}
	b, err := toml.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "# %s: OK\n%s", cfg.Path, b)
	return nil
}

// newGroupCommand is a command that only holds verbs: run alone or with a
// word that is not one of them, it is a usage error naming them.
func newGroupCommand(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:         use,
		Short:       short,
		Annotations: trust(trustNone),
		Args:        usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			var verbs []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					verbs = append(verbs, c.Name())
				}
			}
			return usageError{fmt.Errorf("'svc-ctl %s' needs a command: %v", use, verbs)}
		},
	}
}
