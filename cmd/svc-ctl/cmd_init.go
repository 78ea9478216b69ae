package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/contrib"
	"svcctl/internal/fsutil"
)

// starterConfig is what `svc-ctl init` writes: [agent] and a service and a
// job to uncomment. It loads as it is (a test holds it to that).
//
//go:embed init_starter.toml
var starterConfig string

type initOptions struct{ example, print bool }

func (o *initOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.example, "example", false, "the full commented example (every key) instead of the short starter; replace its commands before running it")
	f.BoolVar(&o.print, "print", false, "print the config on stdout instead of writing it")
}

func newInitCommand(g *globals) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:         "init [--example] [--print]",
		Annotations: trust(trustNone),
		Short:       "Write a commented starter config (where svc-ctl looks for it, or --config)",
		Long: `Write a starter config to the path svc-ctl reads (--config, else
$SVC_CTL_CONFIG, else the platform's: 'svc-ctl config check' prints it), for
a binary-only install that has no contrib/ directory. The starter has [agent]
and a service and a job to uncomment; --example writes the full commented
example instead (every key, with its default; its commands are examples to
replace). An existing file is never overwritten. --print prints instead.`,
		Example: "  svc-ctl init\n  svc-ctl init --example --print | less",
		Args:    usageArgs(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, args []string) error { return runInit(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runInit(_ context.Context, g *globals, o initOptions, _ []string) error {
	body := starterConfig
	if o.example {
		body = contrib.ExampleConfig
	}
	if o.print {
		_, err := fmt.Fprint(g.stdout, body)
		return err
	}
	path, source, err := config.Resolve(g.configPath)
	if err != nil {
		return configError{err}
	}
	if _, err := os.Lstat(path); err == nil {
		return usageError{fmt.Errorf("%s (from %s) already exists: not overwritten; edit it, or 'svc-ctl init --print' to see the starter", path, source)}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := fsutil.EnsureDir(filepath.Dir(path)); err != nil {
		return err
	}
	// Created without following a link and never over an existing file;
	// 0600: nobody else may change what the agent runs.
	f, err := fsutil.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fsutil.FilePerm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(g.stdout, "wrote %s (from %s)\nnext: edit it, then 'svc-ctl config check --config %s', then 'svc-ctl agent' (or 'svc-ctl install')\n", path, source, path)
	return nil
}
