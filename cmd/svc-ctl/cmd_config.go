package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"

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
	g.fileItself = true
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
	// Warnings, not errors: the file is valid, and the agent looks each
	// program up again at every start (one missing at boot stops no other).
	for _, w := range cfg.ProgramWarnings() {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: %s\n", w)
	}
	r := cfg.Redacted()
	if o.json {
		return writeJSON(g.stdout, r)
	}
	b, err := toml.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "# %s: OK\n", cfg.Path)
	for _, m := range cfg.Includes {
		if len(m.Files) == 0 {
			fmt.Fprintf(g.stdout, "# include %q matched no file\n", m.Pattern)
			continue
		}
		fmt.Fprintf(g.stdout, "# include %q: %s\n", m.Pattern, strings.Join(m.Files, ", "))
	}
	io.WriteString(g.stdout, withSources(string(b), cfg))
	return nil
}

// withSources puts "# from FILE" above each [[service]], [[job]] and
// [[notify]] table an included file defined: where each key comes from.
// The tables are printed in the config's order, so the n-th header of a
// kind is its n-th table.
func withSources(text string, cfg *config.Config) string {
	if len(cfg.Includes) == 0 {
		return text
	}
	var b strings.Builder
	seen := map[string]int{}
	for _, line := range strings.SplitAfter(text, "\n") {
		var kind, name string
		switch strings.TrimSpace(line) {
		case "[[service]]":
			if i := seen["service"]; i < len(cfg.Services) {
				kind, name = "service", cfg.Services[i].Name
			}
		case "[[job]]":
			if i := seen["job"]; i < len(cfg.Jobs) {
				kind, name = "job", cfg.Jobs[i].Name
			}
		case "[[notify]]":
			if i := seen["notify"]; i < len(cfg.Notify) {
				kind, name = "notify", cfg.Notify[i].Name
			}
		}
		if kind != "" {
			seen[kind]++
			if src := cfg.Source(kind, name); src != cfg.Path {
				b.WriteString("# from " + src + "\n")
			}
		}
		b.WriteString(line)
	}
	return b.String()
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
