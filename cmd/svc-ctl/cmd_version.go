package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type versionOptions struct{ json bool }

func (o *versionOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print as JSON")
}

func newVersionCommand(g *globals) *cobra.Command {
	var o versionOptions
	cmd := &cobra.Command{
		Use:         "version",
		Annotations: trust(trustNone),
		Short:       "Print the version of svc-ctl",
		Args:        usageArgs(cobra.NoArgs),
		RunE:        func(cmd *cobra.Command, args []string) error { return runVersion(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

// versionInfo is what `version --json` prints.
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func runVersion(_ context.Context, g *globals, o versionOptions, _ []string) error {
	v := versionInfo{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if o.json {
		return writeJSON(g.stdout, v)
	}
	fmt.Fprintln(g.stdout, versionLine())
	return nil
}

// versionLine is what `svc-ctl version` and `svc-ctl --version` print.
func versionLine() string {
	return fmt.Sprintf("svc-ctl %s (%s, %s/%s)", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
