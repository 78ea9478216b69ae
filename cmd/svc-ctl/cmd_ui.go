package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/control"
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
its first line the page's URL with a random token in its fragment:

  http://127.0.0.1:PORT/#token=...

Paste it into a browser: the page keeps the token in the tab's
sessionStorage and sends it with every request (Authorization: Bearer);
every API answer needs it. --open hands the browser a redirect file in
~/svc-ctl-ui (0600, yours; under sudo, the user sudo names, and the browser
runs as them), never the URL itself: a process's arguments are readable by
every local user. The file is deleted once the page is open. Its actions (start, restart, pause, resume) run the same code as the
CLI verbs, with the same checks of the config and state dir, and are recorded
with trigger manual and by "ui". docs/ui.md shows the page.

The page reads the config file again when it changes. A file that does not
load is shown from the state dir (as status does), with its errors in a
banner, and actions are refused until it loads.

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
	cfg, broken, err := loadUIConfig(ctx, g)
	if err != nil {
		return err
	}
	if broken != nil {
		where := "as the file names it"
		if _, fromFile := config.PeekStateDir(cfg.Path); !fromFile {
			where = "the default: the file names none that can be read"
		}
		warnStateOnly(g, cfg, where, broken)
		fmt.Fprintf(g.stderr, "svc-ctl: warning: the page's actions are refused until the file loads; the page reads it again when it changes\n")
	}
	if reachable {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: serving the status page on %s, beyond this host: whoever has its URL can start, restart and pause services\n", o.listen)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("ui: listen on %s: %w", o.listen, err)
	}
	var srv *ui.Server
	opened := &redirectDone{}
	srv = ui.New(ui.Options{
		Config:      cfg,
		ConfigError: broken,
		Reload: func(ctx context.Context) (*config.Config, error) {
			cfg, broken, err := loadUIConfig(ctx, g)
			if err != nil {
				return nil, err
			}
			return cfg, broken
		},
		Version: version,
		Install: func() report.InstallInfo { return installInfo(srv.Config()) },
		Act:     uiActor(g),
		ToAgent: func(ctx context.Context, sup *watchdog.Supervisor, action, name string) (watchdog.Result, bool, error) {
			kind := control.KindStart
			if action == "restart" {
				kind = control.KindRestart
			}
			var rs []watchdog.Result
			handed, err := toAgent(ctx, g, sup.Paths, kind, control.ActArgs{Names: []string{name}}, &rs)
			if handed && err == nil && len(rs) != 1 {
				err = fmt.Errorf("the agent answered %d results for one service", len(rs))
			}
			if err != nil || !handed {
				return watchdog.Result{}, handed, err
			}
			return rs[0], true, nil
		},
		Log:       slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
		TokenUsed: opened.used,
	})
	url := srv.URL(ln.Addr())
	fmt.Fprintln(g.stdout, url)
	fmt.Fprintf(g.stderr, "svc-ctl ui: serving the status page of %s; Ctrl-C stops it\n", cfg.Path)
	if o.open {
		// Never the URL in the opener's argv (any local user can read a
		// process's command line): a redirect file of the person's, deleted
		// once the page has used the token, or at the latest when this ends.
		path, done, err := ui.OpenPage(url)
		if err != nil {
			fmt.Fprintf(g.stderr, "svc-ctl: warning: %v; open the URL above by hand\n", err)
		} else {
			fmt.Fprintf(g.stderr, "svc-ctl ui: opening the page through %s (deleted once the page is open)\n", path)
			opened.set(done)
			defer done()
		}
	}
	return srv.Serve(ctx, ln)
}

// redirectDone deletes `ui --open`'s redirect file at the first request
// that carries the token, whether it comes before or after the file is
// written.
type redirectDone struct {
	mu      sync.Mutex
	done    func()
	wasUsed bool
}

func (r *redirectDone) used() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wasUsed = true
	if r.done != nil {
		r.done()
	}
}

func (r *redirectDone) set(done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = done
	if r.wasUsed {
		done()
	}
}

// loadUIConfig is the page's load, at start and again whenever the file
// changes: the checked load of an acting verb (loadConfigFresh: LoadToRun,
// state.Check), and, when the file's contents do not load, what the state
// dir alone says, as the readers answer (loadConfigOrState), with why kept
// in broken: the page reads, and its actions, which load again each time
// (uiActor), refuse. A broken file is no way around the permission check:
// a privileged page refuses a config others can write, loadable or not
// (whoever writes it would choose the state dir and logs root shows).
func loadUIConfig(ctx context.Context, g *globals) (cfg *config.Config, broken, err error) {
	cfg, err = loadConfigToRunFresh(g)
	if err == nil || len(config.Errors(err)) == 0 {
		return cfg, nil, err // loaded, or refused for something else than its contents
	}
	path, _, rerr := config.Resolve(g.configPath)
	if rerr != nil {
		return nil, nil, err
	}
	if !config.UserMode() {
		if perr := config.CheckPermissions(path); perr != nil {
			return nil, nil, configError{perr}
		}
	}
	scfg, _, serr := stateOnly(ctx, path, err)
	if serr != nil {
		return nil, nil, serr
	}
	return scfg, err, nil
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
		return cliSupervisor(g, cfg, rec), closeRec, nil
	}
}
