package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { addCommand(newVersionCommand) }

func newVersionCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Annotations: trust(trustNone),
		Short:       "Print the version of svc-ctl",
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(g.stdout, "svc-ctl %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
