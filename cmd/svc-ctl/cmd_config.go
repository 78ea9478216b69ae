package main

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
)

func init() { addCommand(newConfigCommand) }

func newConfigCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Work with the configuration file"}
	var asJSON bool
	check := &cobra.Command{
		Use:         "check",
		Annotations: trust(trustRead),
		Short:       "Validate the config and print it resolved (defaults applied, env values redacted)",
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(g)
			if err != nil {
				return err
			}
			r := cfg.Redacted()
			if asJSON {
				return writeJSON(g.stdout, r)
			}
			b, err := toml.Marshal(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "# %s: OK\n%s", cfg.Path, b)
			return nil
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.AddCommand(check)
	return cmd
}
