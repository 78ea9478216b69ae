package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/agent"
	"svcctl/config"
	"svcctl/internal/demosvc"
	"svcctl/internal/fsutil"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/runtrace"
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
# min_interval = "0s" shows every event at once; a real channel keeps the
# default (5m per service or job) so a flapping service cannot flood a phone.
[[notify]]
name = "demo-screen"
kind = "webhook"
url  = "http://%s/events"
min_interval = "0s"
`

// storyJobsMarker begins the story's jobs in the demo's config.
const storyJobsMarker = "# The story's jobs:"

// demoReloadJob is what the story's last step adds to the file, and the
// agent takes without a restart.
const demoReloadJob = `
# Added by the story's reload step:
[[job]]
name     = "hello"
schedule = "@every 1m"
timezone = "Local"
command  = [%q, "demo-job", "ok"]
`

// demoStoryJobs are the jobs of the story: one that fails, one that
// reports its own skip (SVCCTL_RESULT), and one that another scheduler is
// supposed to run (external) and did not: a missing slot.
const demoStoryJobs = `
` + storyJobsMarker + `
[[job]]
name     = "report"
schedule = "@every 30s"
timezone = "Local"
command  = [%q, "demo-job", "fail"]
timeout  = "10s"

[[job]]
name     = "sync"
schedule = "@every 30s"
timezone = "Local"
command  = [%q, "demo-job", "skip"]
timeout  = "10s"

[[job]]
name     = "backup"
schedule = "@every 1m"
timezone = "Local"
external = true   # cron is supposed to run it through 'svc-ctl exec backup -- ...'
grace    = "10s"
`

type demoOptions struct{ keep, quiet bool }

func (o *demoOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.keep, "keep", false, "keep the temporary state dir afterwards")
	f.BoolVar(&o.quiet, "quiet", false, "no story: just the agent and the demo service, for you to try things on")
}

func newDemoCommand(g *globals) *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:         "demo",
		Annotations: trust(trustNone),
		Short:       "Run a self-contained demo: the agent, a demo service and jobs, and a one-minute story",
		Long: `Start the agent in the foreground on a temporary state dir with an embedded
config that supervises a demo service built into this binary, 5 s cycles. In
its first minute it plays a story, each step with the commands that show it:
a crash restored at once (the fast path), a hang replaced at the next cycle, a
job that fails, one that reports its own skip, a slot of an external job that
never ran, a reload, and the events a notification channel would get (NOTIFY
lines). At a terminal each step waits for Enter; otherwise the story runs
straight through. Then the agent keeps running, with everything the story
showed, for you to try the commands it suggested (it prints the
'export SVC_CTL_CONFIG=...' line that lets you type them bare). --quiet skips
the story. Ctrl-C stops the agent cleanly and the demo service too.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runDemo(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

// newDemoJobCommand is the story's jobs (`svc-ctl demo-job fail|skip`).
func newDemoJobCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:                "demo-job",
		Annotations:        trust(trustNone),
		Short:              "The demo's jobs (used by 'svc-ctl demo')",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := demosvc.JobMain(args, g.stdout, g.stderr); code != 0 {
				return exitStatus{code: code}
			}
			return nil
		},
	}
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
	out := &lockedWriter{w: g.stdout}
	events, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: listen for its notifications: %w", err)
	}
	srv := &http.Server{Handler: printEvents(out), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(events)
	defer srv.Close()
	dir, cfgPath, addr, err := writeDemoConfig(events.Addr().String(), !o.quiet)
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
	if err := fsutil.EnsureDir(cfg.Agent.StateDir); err != nil {
		return err
	}
	if o.quiet {
		printDemoIntro(out, cfgPath, addr)
	} else {
		if err := registerMissedBackup(ctx, cfg); err != nil {
			return err
		}
		printStoryIntro(out, cfgPath)
	}
	lj, err := os.OpenFile(state.PathsOf(cfg).AgentLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer lj.Close()
	pr, pw := io.Pipe()
	go narrate(pr, out, !o.quiet)
	ready := make(chan struct{})
	opts := agent.Options{Config: cfg, Version: version, Mode: "foreground", LogWriter: io.MultiWriter(lj, pw), Ready: ready}
	if !o.quiet {
		opts.MaxStagger = 500 * time.Millisecond // the story starts at once
	}
	err = untilSecondSignal(ctx, g, func(ctx context.Context, w wakes) error {
		opts.Reload, opts.Requests = w.reload, w.requests
		if !o.quiet {
			story := &demoStory{out: out, cfg: cfg, cfgPath: cfgPath, addr: addr, enter: enterKey(ctx, g)}
			go func() {
				select {
				case <-ready:
					story.run(ctx)
				case <-ctx.Done():
				}
			}()
		}
		return agent.Run(ctx, opts)
	})
	pw.Close()
	stopDemoService(out, cfg)
	if o.keep {
		fmt.Fprintf(out, "state kept in %s\n", dir)
	}
	return err
}

// enterKey is how the story waits for a person between its steps: a line
// on stdin, when stdin and stdout are a terminal; nil (no waiting) when the
// demo runs with no one at a terminal (a script, a test).
func enterKey(ctx context.Context, g *globals) <-chan struct{} {
	if !isTerminal(os.Stdin) || !isTerminal(g.stdout) {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		r := bufio.NewReader(os.Stdin)
		for {
			if _, err := r.ReadString('\n'); err != nil {
				close(ch)
				return
			}
			select {
			case ch <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// registerMissedBackup registers the story's external job as loaded 90 s
// ago: the slot it had 30 s ago, past its grace, has no run, and the agent's
// first job.missing check finds it.
func registerMissedBackup(ctx context.Context, cfg *config.Config) error {
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer st.Close()
	j := cfg.Job("backup")
	_, err = st.Register(ctx, runtrace.JobID(j.Name), j.Registration(), time.Now().Add(-90*time.Second).UTC())
	return err
}

// lockedWriter keeps the story's blocks, the NOTIFY lines and the log
// lines from cutting into each other.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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

func writeDemoConfig(eventsAddr string, story bool) (dir, cfgPath, addr string, err error) {
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
	if story {
		body += fmt.Sprintf(demoStoryJobs, exe, exe)
	}
	return dir, cfgPath, addr, os.WriteFile(cfgPath, []byte(body), 0o600)
}

func printDemoIntro(w io.Writer, cfgPath, addr string) {
	fmt.Fprintf(w, `svc-ctl demo: the agent supervises "demo" (http://%s/health), cycling every 5 s.

Try in another terminal:
  $ export SVC_CTL_CONFIG=%s
  $ svc-ctl status
  $ curl -s http://%s/control/crash       # kill it: the agent restarts it at once (fast path)
  $ curl -s http://%s/control/hang        # hang its /health: replaced at the next cycle
  $ svc-ctl runs --hide-routine
  $ svc-ctl why demo
  $ svc-ctl snapshot demo
  $ svc-ctl pause demo --for 1m
  $ svc-ctl notify list

Lines marked NOTIFY are the events a [[notify]] channel would send.
(If you use 'go run', build once instead: go build ./cmd/svc-ctl && ./svc-ctl ...)
Ctrl-C stops the agent and the demo service.

`, addr, cfgPath, addr, addr)
}

// storyLog is what the story shows of agent.log: what happened to the
// service and the jobs, not every cycle.
var storyLog = map[string]bool{"service.exited": true, "service.spawned": true, "job.finished": true,
	"job.missing": true, "agent.reloaded": true}

// narrate turns the agent's JSON log lines into one short line each (in
// the story, only those storyLog names and warnings).
func narrate(r io.Reader, w io.Writer, story bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	skip := map[string]bool{"time": true, "level": true, "msg": true, "pid": true}
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if msg, _ := m["msg"].(string); story && !storyLog[msg] && m["level"] != "WARN" && m["level"] != "ERROR" {
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
func stopDemoService(w io.Writer, cfg *config.Config) {
	p := state.PathsOf(cfg)
	id, err := proc.ReadPidFile(p.Pid("demo"))
	if err != nil {
		return
	}
	if _, err := proc.Stop(context.Background(), id, 3*time.Second); err == nil {
		fmt.Fprintf(w, "demo service (pid %d) stopped\n", id.PID)
	}
}
