package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/agent"
	"svcctl/control"
)

type agentOptions struct {
	mode        string
	maxStagger  time.Duration
	verifyAfter time.Duration
}

func (o *agentOptions) addFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.maxStagger, "max-stagger", 0, "cap the random delay before the first cycles (tests)")
	f.MarkHidden("max-stagger")
	f.DurationVar(&o.verifyAfter, "verify-after", 30*time.Second,
		"run 'svc-ctl verify' this long after the agent started and send an agent event naming every check that FAILs; 0 = never")
	f.StringVar(&o.mode, "mode", "", "how the agent was started, for the record: service | user-service | foreground (default: detected)")
}

func newAgentCommand(g *globals) *cobra.Command {
	var o agentOptions
	cmd := &cobra.Command{
		Use:         "agent",
		Annotations: trust(trustRun),
		Short:       "Run the agent in the foreground (what the OS service runs)",
		Long: `Run the agent: one watchdog loop per service, the scheduled jobs, the heartbeat.
It logs JSON lines to <state>/agent.log (and to stderr when that is a terminal).
SIGINT/SIGTERM stop it cleanly: in-flight runs may finish up to drain_timeout,
supervised services keep running. A second signal exits at once (status 130).
SIGHUP asks it to re-read its config; it never stops the agent.`,
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
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return err
	}
	mode := o.mode
	if mode == "" {
		mode = detectMode()
	}
	var checks func(context.Context) []string
	if o.verifyAfter > 0 {
		checks = startChecks(cfg, mode)
	}
	return untilSecondSignal(ctx, g, func(ctx context.Context, w wakes) error {
		return runAsService(ctx, mode, func(ctx context.Context) error {
			return agent.Run(ctx, agent.Options{Config: cfg, Version: version, Mode: mode, Stderr: os.Stderr,
				MaxStagger: o.maxStagger, Reload: w.reload, Requests: w.requests, Lean: true, StartChecks: checks, StartChecksAfter: o.verifyAfter})
		})
	})
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
