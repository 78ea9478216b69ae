package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/agent"
	"svcctl/config"
	"svcctl/control"
	"svcctl/proc"
	"svcctl/state"
)

type agentOptions struct {
	mode, logFormat string
	managed         bool
	maxStagger      time.Duration
	verifyAfter     time.Duration
}

func (o *agentOptions) addFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.maxStagger, "max-stagger", 0, "cap the random delay before the first cycles (tests)")
	f.MarkHidden("max-stagger")
	f.DurationVar(&o.verifyAfter, "verify-after", 30*time.Second,
		"run 'svc-ctl verify' this long after the agent started and send an agent event naming every check that FAILs; 0 = never")
	f.BoolVar(&o.managed, "managed", false, "the OS service manager runs this agent (what 'svc-ctl install' renders); without it the agent is a person's, whatever its session")
	f.StringVar(&o.mode, "mode", "", "how the agent was started, for the record: service | user-service | foreground (default: service or user-service with --managed, else foreground)")
	f.StringVar(&o.logFormat, "log-format", "", "what a foreground agent prints of its log on stderr: human | json (default: human on a terminal, json otherwise)")
}

func newAgentCommand(g *globals) *cobra.Command {
	var o agentOptions
	cmd := &cobra.Command{
		Use:         "agent",
		Annotations: trust(trustRun),
		Short:       "Run the agent in the foreground (what the OS service runs)",
		Long: `Run the agent: one watchdog loop per service, the scheduled jobs, the heartbeat.
It logs JSON lines to <state>/agent.log. Run by a person (no --managed), it
also prints them on stderr: as 'svc-ctl logs agent' shows them on a terminal,
as JSON lines otherwise (--log-format picks). Under the OS service manager
(--managed, what 'svc-ctl install' renders) stderr gets only what agent.log
cannot take.

SIGINT/SIGTERM stop it cleanly: in-flight runs may finish up to drain_timeout;
supervised services keep running, and a person's agent says which and how to
stop them. A second signal exits at once (status 130). SIGHUP asks it to
re-read its config; it never stops the agent.

Changed default: an agent started without --managed or --mode is a
foreground agent, whatever its session (setsid, nohup, a unit written by
hand); before, its parent and session were taken to mean a service.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAgent(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runAgent(ctx context.Context, g *globals, o agentOptions, _ []string) error {
	if o.verifyAfter < 0 {
		return usageError{fmt.Errorf("--verify-after %s: use a duration such as 30s, or 0 for never", o.verifyAfter)}
	}
	if o.logFormat != "" && o.logFormat != "human" && o.logFormat != "json" {
		return usageError{fmt.Errorf("--log-format %q: want human or json", o.logFormat)}
	}
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return err
	}
	mode := o.mode
	if mode == "" {
		mode = detectMode(o.managed)
	}
	var checks func(context.Context) []string
	if o.verifyAfter > 0 {
		checks = startChecks(cfg, mode)
	}
	foreground := mode == "foreground"
	var console io.Writer
	if foreground {
		console = agentConsole(g.stderr, o.logFormat)
	}
	err = untilSecondSignal(ctx, g, func(ctx context.Context, w wakes) error {
		return runAsService(ctx, mode, func(ctx context.Context) error {
			return agent.Run(ctx, agent.Options{Config: cfg, Version: version, Mode: mode, Stderr: os.Stderr, Console: console,
				MaxStagger: o.maxStagger, Reload: w.reload, Requests: w.requests, Lean: true, StartChecks: checks, StartChecksAfter: o.verifyAfter,
				Scope: foreground}) // started by hand: a transient scope where systemd can give one
		})
	})
	var busy *state.AlreadyRunningError
	if foreground && !errors.As(err, &busy) {
		printLeftRunning(g, cfg)
	}
	return err
}

// agentConsole is where a person's agent prints its log: the human lines
// of 'svc-ctl logs agent' on a terminal, the JSON lines otherwise.
func agentConsole(w io.Writer, format string) io.Writer {
	if format == "json" || (format == "" && !isTerminal(w)) {
		return w
	}
	return &humanLog{w: w, colour: colourOn(w)}
}

// humanLog turns the agent's JSON log lines into the lines `svc-ctl logs
// agent` prints.
type humanLog struct {
	mu     sync.Mutex
	w      io.Writer
	colour bool
	buf    []byte
}

func (h *humanLog) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf = append(h.buf, p...)
	for {
		i := bytes.IndexByte(h.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(h.buf[:i])
		h.buf = h.buf[i+1:]
		io.WriteString(h.w, paintLogLine(prettyAgentLine(line, false), h.colour)+"\n")
	}
}

// printLeftRunning is a person's agent's last word: which services keep
// running now that nothing supervises them, and how to stop them.
func printLeftRunning(g *globals, cfg *config.Config) {
	p := state.PathsOf(cfg)
	var lines []string
	var names []string
	for _, s := range cfg.Services {
		inst, err := proc.ReadInstance(p.Pid(s.Name))
		if err != nil {
			continue
		}
		if t, err := proc.Members(inst); err == nil && t.Len() > 0 {
			lines = append(lines, fmt.Sprintf("  %s\tpid %d (%s)", s.Name, inst.PID, processes(t.Len())))
			names = append(names, s.Name)
		}
	}
	if len(lines) == 0 {
		fmt.Fprintln(g.stderr, "svc-ctl: the agent stopped; none of its services is running.")
		return
	}
	fmt.Fprintf(g.stderr, "svc-ctl: the agent stopped. These keep running, unsupervised until an agent runs again:\n")
	tw := tabwriter.NewWriter(g.stderr, 0, 0, 2, ' ', 0)
	for _, l := range lines {
		fmt.Fprintln(tw, l)
	}
	tw.Flush()
	fmt.Fprintf(g.stderr, "Stop them with: svc-ctl stop %s --config %s\n", strings.Join(names, " "), cfg.Path)
}

// untilSecondSignal runs fn with a context the first SIGINT/SIGTERM cancels
// (the agent drains), and returns at once, status 130, on a second one during
// the drain: the person insists. A second signal within 250 ms of the first
// is the same request delivered twice (a supervisor that signals both the
// process and its group), not a person insisting.
//
// The wake signals of package control (SIGHUP: a reload; SIGUSR1: the
// other requests of the command line) are caught for as long as fn runs,
// drain included: left to Go's default they would end the process with no
// drain. Each one becomes a wake on w; wakes coalesce (the agent takes
// every request waiting at each one).
func untilSecondSignal(ctx context.Context, g *globals, fn func(ctx context.Context, w wakes) error) error {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(ch)
	hup, usr := make(chan os.Signal, 1), make(chan os.Signal, 1)
	if control.ReloadSignal != nil {
		signal.Notify(hup, control.ReloadSignal)
		defer signal.Stop(hup)
	}
	if control.RequestSignal != nil {
		signal.Notify(usr, control.RequestSignal)
		defer signal.Stop(usr)
	}
	w := wakes{reload: make(chan struct{}, 1), requests: make(chan struct{}, 1)}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(runCtx, w) }()
	var first time.Time
	for {
		select {
		case err := <-done:
			return err
		case <-hup:
			wake(w.reload)
		case <-usr:
			wake(w.requests)
		case s := <-ch:
			switch {
			case first.IsZero():
				first = time.Now()
				cancel()
			case time.Since(first) >= 250*time.Millisecond:
				return exitStatus{code: 130, msg: fmt.Sprintf("second %v during drain: exiting now", s)}
			}
		}
	}
}

// wakes are the agent's wake channels (agent.Options.Reload, Requests).
type wakes struct{ reload, requests chan struct{} }

func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // one pending is enough
	}
}
