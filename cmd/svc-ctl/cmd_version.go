package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

type versionOptions struct{}

func newVersionCommand(g *globals) *cobra.Command {
	var o versionOptions
	return &cobra.Command{
		Use:         "version",
		Annotations: trust(trustNone),
		Short:       "Print the version of svc-ctl",
		Args:        usageArgs(cobra.NoArgs),
		RunE:        func(cmd *cobra.Command, args []string) error { return runVersion(cmd.Context(), g, o, args) },
	}
}

func runVersion(_ context.Context, g *globals, _ versionOptions, _ []string) error {
	fmt.Fprintf(g.stdout, "svc-ctl %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
