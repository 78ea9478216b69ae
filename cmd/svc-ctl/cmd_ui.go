package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/report"
	"svcctl/ui"
	"svcctl/watchdog"
)

type uiOptions struct {
	listen       string
	open, public bool
}

func (o *uiOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.listen, "listen", ui.DefaultListen, "address to serve on (port 0: a free one)")
	f.BoolVar(&o.open, "open", false, "open the page in the default browser")
	f.BoolVar(&o.public, "listen-public", false, "allow a --listen address that is not loopback (the page can start and stop services)")
}

func newUICommand(g *globals) *cobra.Command {
	var o uiOptions
	cmd := &cobra.Command{
		Use:         "ui [--listen ADDR] [--open]",
		Annotations: trust(trustRun),
		Short:       "Serve the status page: services, jobs, a timeline of every run, and the why of each",
		Long: `Serve the status page from this process until Ctrl-C. It reads the state
directory and run_trace read-only (no running agent is needed) and prints as
its first line the page's URL with a random token:

  http://127.0.0.1:PORT/?token=...

Everything the page serves needs that token; the first load moves it into a
cookie. Its actions (start, restart, pause, resume) run the same code as the
CLI verbs, with the same checks of the config and state dir, and are recorded
with trigger manual and by "ui". docs/ui.md shows the page.

It listens on 127.0.0.1 with a free port unless --listen says otherwise; an
address that is not loopback also needs --listen-public.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runUI(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runUI(ctx context.Context, g *globals, o uiOptions, _ []string) error {
	reachable, err := ui.CheckListen(o.listen, o.public)
	if err != nil {
		return usageError{err}
	}
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return err
	}
	if reachable {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: serving the status page on %s, beyond this host: whoever has its URL can start, restart and pause services\n", o.listen)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("ui: listen on %s: %w", o.listen, err)
	}
	srv := ui.New(ui.Options{
		Config:  cfg,
		Version: version,
		Install: func() report.InstallInfo { return installInfo(cfg) },
		Act:     uiActor(g),
		Log:     slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	url := srv.URL(ln.Addr())
	fmt.Fprintln(g.stdout, url)
	fmt.Fprintf(g.stderr, "svc-ctl ui: serving the status page of %s; Ctrl-C stops it\n", cfg.Path)
	if o.open {
		if err := ui.OpenBrowser(url); err != nil {
			fmt.Fprintf(g.stderr, "svc-ctl: warning: %v\n", err)
		}
	}
	return srv.Serve(ctx, ln)
}

// uiActor builds each action's supervisor as `svc-ctl start`, `pause` and
// `resume` build theirs (newSupervisor), with the config and state dir
// checked again for every action.
func uiActor(g *globals) ui.Actor {
	return func(ctx context.Context) (*watchdog.Supervisor, func(), error) {
		cfg, err := loadConfigFresh(g)
		if err != nil {
			return nil, nil, err
		}
		rec, closeRec := openLedger(g, cfg)
		return watchdog.NewSupervisor(cfg, rec, cliLogger(g)), closeRec, nil
	}
}
