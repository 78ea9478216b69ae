package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"svcctl/agent"
	"svcctl/state"
)

func init() { addCommand(newAgentCommand) }

type agentOptions struct {
	mode       string
	maxStagger time.Duration
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
supervised services keep running. A second signal exits at once (non-zero).
SIGHUP asks it to re-read its config; it never stops the agent.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runAgent(cmd.Context(), g, o) },
	}
	cmd.Flags().DurationVar(&o.maxStagger, "max-stagger", 0, "cap the random delay before the first cycles (tests)")
	cmd.Flags().MarkHidden("max-stagger")
	cmd.Flags().StringVar(&o.mode, "mode", "", "how the agent was started, for the record: service | user-service | foreground (default: detected)")
	return cmd
}

func runAgent(ctx context.Context, g *globals, o agentOptions) error {
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return err
	}
	mode := o.mode
	if mode == "" {
		mode = detectMode()
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	reload, stopSignals := handleSignals(cancel, g)
	defer stopSignals()
	err = runAsService(ctx, func(ctx context.Context) error {
		return agent.Run(ctx, agent.Options{Config: cfg, Version: version, Mode: mode, Stderr: os.Stderr,
			MaxStagger: o.maxStagger, Reload: reload})
	})
	var running *state.AlreadyRunningError
	if errors.As(err, &running) {
		return usageError{err}
	}
	return err
}

// handleSignals: the first SIGINT/SIGTERM starts the drain; a second one
// during the drain exits at once, non-zero. A second signal within 250 ms of
// the first is the same request delivered twice (a supervisor that signals
// both the process and its group), not a person insisting.
//
// SIGHUP (reloadSignals) is caught for as long as the agent runs, drain
// included: left to Go's default it would end the process with no drain. Each
// one becomes a request on reload; requests coalesce.
func handleSignals(cancel context.CancelFunc, g *globals) (reload <-chan struct{}, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	hup := make(chan os.Signal, 1)
	reqs := make(chan struct{}, 1)
	if len(reloadSignals) > 0 {
		signal.Notify(hup, reloadSignals...)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				select {
				case reqs <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	go func() {
		var first time.Time
		select {
		case <-ch:
			first = time.Now()
			cancel()
		case <-done:
			return
		}
		for {
			select {
			case s := <-ch:
				if time.Since(first) < 250*time.Millisecond {
					continue
				}
				fmt.Fprintf(g.stderr, "svc-ctl: second %v during drain: exiting now\n", s)
				os.Exit(130)
			case <-done:
				return
			}
		}
	}()
	return reqs, func() { signal.Stop(ch); signal.Stop(hup); close(done) }
}
