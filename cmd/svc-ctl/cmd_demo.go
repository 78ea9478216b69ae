package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/agent"
	"svcctl/config"
	"svcctl/internal/demosvc"
	"svcctl/internal/fsutil"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/state"
)

// demoConfig is the embedded default: one demo service built into this very
// binary, watched every 5 s.
const demoConfig = `# svc-ctl demo config (written by 'svc-ctl demo'; safe to delete)
[agent]
state_dir = %q
log_level = "info"
heartbeat = "5s"
drain_timeout = "5s"

[[service]]
name          = "demo"
command       = [%q, "demo-service", "--addr", %q, "--tick", "30s"]
interval      = "5s"
start_timeout = "5s"
stop_timeout  = "3s"
  [service.health]
  http    = "http://%s/health"
  timeout = "1s"
  confirm = "1s"
  [service.restart]
  backoff_initial = "2s"
  backoff_max     = "30s"
  give_up_after   = 5

# The events the agent would send: a webhook to this demo process, which
# prints them. Point a real channel here instead (docs/notifications.md).
[[notify]]
name = "demo-screen"
kind = "webhook"
url  = "http://%s/events"
`

type demoOptions struct{ keep bool }

func (o *demoOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.keep, "keep", false, "keep the temporary state dir afterwards")
}

func newDemoCommand(g *globals) *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:         "demo",
		Annotations: trust(trustNone),
		Short:       "Run a self-contained demo: the agent and a built-in demo service, 5 s cycles",
		Long: `Start the agent in the foreground on a temporary state dir with an embedded
config that supervises a demo service built into this binary. It prints what to
try in another terminal, and what happens as it happens. Ctrl-C stops the agent
cleanly and the demo service too.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runDemo(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

// newDemoServiceCommand is the demo service itself, which the demo's config
// runs as `svc-ctl demo-service --addr A`: its exit status is the service's.
func newDemoServiceCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:                "demo-service",
		Annotations:        trust(trustNone),
		Short:              "The demo service (used by 'svc-ctl demo')",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := demosvc.Main(cmd.Context(), args, g.stdout, g.stderr); code != 0 {
				return exitStatus{code: code}
			}
			return nil
		},
	}
}

func runDemo(ctx context.Context, g *globals, o demoOptions, _ []string) error {
	events, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: listen for its notifications: %w", err)
	}
	srv := &http.Server{Handler: printEvents(g.stdout), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(events)
	defer srv.Close()
	dir, cfgPath, addr, err := writeDemoConfig(events.Addr().String())
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return fmt.Errorf("demo config: %w", err)
	}
	printDemoIntro(g.stdout, cfgPath, addr)
	if err := fsutil.EnsureDir(cfg.Agent.StateDir); err != nil {
		return err
	}
	lj, err := os.OpenFile(state.PathsOf(cfg).AgentLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer lj.Close()
	pr, pw := io.Pipe()
	go narrate(pr, g.stdout)
	err = untilSecondSignal(ctx, g, func(ctx context.Context, reload <-chan struct{}) error {
		return agent.Run(ctx, agent.Options{Config: cfg, Version: version, Mode: "foreground", LogWriter: io.MultiWriter(lj, pw),
			Reload: reload})
	})
	pw.Close()
	stopDemoService(g, cfg)
	if o.keep {
		fmt.Fprintf(g.stdout, "state kept in %s\n", dir)
	}
	return err
}

// printEvents is the demo's notification channel: every event the agent
// sends (through the outbox and the webhook channel, as a real one would)
// is printed as one line.
func printEvents(w io.Writer) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		e, err := notify.DecodeEvent(b)
		if err != nil {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%s NOTIFY %s: %s\n", time.Now().Format("15:04:05"), e.Kind, e.Text())
	})
}

func writeDemoConfig(eventsAddr string) (dir, cfgPath, addr string, err error) {
	dir, err = os.MkdirTemp("", "svc-ctl-demo-")
	if err != nil {
		return "", "", "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", "", fmt.Errorf("find a free loopback port: %w", err)
	}
	addr = ln.Addr().String()
	ln.Close()
	exe, err := os.Executable()
	if err != nil {
		return "", "", "", err
	}
	stateDir := filepath.Join(dir, "state")
	cfgPath = filepath.Join(dir, "svc-ctl.toml")
	body := fmt.Sprintf(demoConfig, stateDir, exe, addr, addr, eventsAddr)
	return dir, cfgPath, addr, os.WriteFile(cfgPath, []byte(body), 0o600)
}

func printDemoIntro(w io.Writer, cfgPath, addr string) {
	c := "--config " + cfgPath
	fmt.Fprintf(w, `svc-ctl demo: the agent supervises "demo" (http://%s/health), cycling every 5 s.

Try in another terminal:
  svc-ctl status %s
  curl -s http://%s/control/crash       # kill it: the agent restarts it at once (fast path)
  curl -s http://%s/control/hang        # hang its /health: replaced at the next cycle
  svc-ctl runs %s
  svc-ctl why watchdog:demo %s
  svc-ctl snapshot demo %s
  svc-ctl pause demo --for 1m %s
  svc-ctl notify list %s

Lines marked NOTIFY are the events a [[notify]] channel would send.
(If you use 'go run', build once instead: go build ./cmd/svc-ctl && ./svc-ctl ...)
Ctrl-C stops the agent and the demo service.

`, addr, c, addr, addr, c, c, c, c, c)
}

// narrate turns the agent's JSON log lines into one short line each.
func narrate(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	skip := map[string]bool{"time": true, "level": true, "msg": true, "pid": true}
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			if !skip[k] && k != "stack" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var b strings.Builder
		fmt.Fprintf(&b, "%s %-5v %v", time.Now().Format("15:04:05"), m["level"], m["msg"])
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%v", k, m[k])
		}
		fmt.Fprintln(w, b.String())
	}
}

// stopDemoService stops the demo service (identity-checked): a demo leaves
// nothing running behind.
func stopDemoService(g *globals, cfg *config.Config) {
	p := state.PathsOf(cfg)
	id, err := proc.ReadPidFile(p.Pid("demo"))
	if err != nil {
		return
	}
	if _, err := proc.Stop(context.Background(), id, 3*time.Second); err == nil {
		fmt.Fprintf(g.stdout, "demo service (pid %d) stopped\n", id.PID)
	}
}
