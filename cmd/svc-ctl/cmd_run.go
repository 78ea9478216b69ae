package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/control"
	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/jobs"
	"svcctl/notify"
	"svcctl/runtrace"
	"svcctl/state"
)

type runOptions struct{ timeout time.Duration }

func (o *runOptions) addFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.timeout, "timeout", 15*time.Second, "how long to wait for the running agent to begin the run")
}

func newRunCommand(g *globals) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:         "run JOB",
		Annotations: trust(trustRun),
		Short:       "Run a configured job now, with its own command, env, dir, user and timeout",
		Long: `Run JOB now, exactly as its schedule would: its command, env, env_file, dir,
user, timeout, dependencies and result protocol (SVCCTL_RESULT), its output
kept in its last.log. The running agent runs it (a request, as reload is),
so its rule of one run at a time holds; with no agent running, this command
runs it itself. Its output streams here as it comes; svc-ctl's own lines go
to stderr.

  svc-ctl run report
  ... the job's output ...
  report: failed/exit-nonzero: exit code 3 after 1.2s (run #41; 'svc-ctl why --run 41')

The run is recorded with trigger manual. It serves no slot: 'svc-ctl missing'
still reports a slot the schedule missed. While it runs, a slot that comes
due is recorded skipped/overlap. Ctrl-C ends the run (its whole process
tree) and records it failed/interrupted. A job with external = true is run by
another scheduler through 'svc-ctl exec' and is refused here.

Exit status: the job's (as 'svc-ctl exec': its exit code, 124 for a timeout,
127 when it could not start, 130 when interrupted); 1 when a run of the job
is already in flight (named) or the agent did not answer; 2 for a name that
is not a job.`,
		Example:           "  svc-ctl run daily-pull\n  svc-ctl run report > report.out",
		ValidArgsFunction: completeJob(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runRun(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runRun(ctx context.Context, g *globals, o runOptions, args []string) error {
	keepRunningWhenReaderGoes()
	name := args[0]
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return runHandedOver(ctx, g, o, name, err)
	}
	if err := readableState(cfg); err != nil {
		return err
	}
	j := cfg.Job(name)
	if j == nil {
		return unknownJob(cfg, name)
	}
	if j.External {
		return usageError{errors.New(jobs.ExternalRefusal(name))}
	}
	err = runThroughAgent(ctx, g, o, state.PathsOf(cfg), name)
	if errors.Is(err, control.ErrNoAgent) {
		return runHere(ctx, g, cfg, j)
	}
	return err
}

// runHandedOver runs the job through the running agent when the config
// file does not load: the agent still runs the config it loaded before.
func runHandedOver(ctx context.Context, g *globals, o runOptions, name string, loadErr error) error {
	if !brokenFile(loadErr) {
		return loadErr
	}
	p, broken, err := agentTarget(g)
	if err != nil || broken == nil {
		return loadErr
	}
	a, err := control.Running(p)
	if err != nil {
		return loadErr // no agent: nothing runs a job of a file that does not load
	}
	line, _, _ := strings.Cut(strings.TrimSpace(broken.Error()), "\n")
	fmt.Fprintf(g.stderr, "svc-ctl: the config does not load (%s);\nsvc-ctl: the running agent (pid %d) still runs the config it loaded before: it runs %s\n", line, a.PID, name)
	return runThroughAgent(ctx, g, o, p, name)
}

// runThroughAgent hands the run to the running agent and follows it:
// control.ErrNoAgent when none runs.
func runThroughAgent(ctx context.Context, g *globals, o runOptions, p state.Paths, name string) error {
	// Not cut short by Ctrl-C: once the agent took the request the run is
	// under way, and only its id lets this command end it (followRun does,
	// at once, when Ctrl-C came meanwhile).
	req, resp, err := control.Send(context.WithoutCancel(ctx), p, control.KindRun, control.RunArgs{Job: name}, o.timeout)
	switch {
	case err != nil:
		return err
	case resp.Refused != "":
		return refusedRun(name, resp)
	}
	var acc control.RunAccepted
	if err := resp.Decode(&acc); err != nil {
		return fmt.Errorf("the agent's answer: %w", err)
	}
	if acc.Paused != "" {
		fmt.Fprintf(g.stderr, "svc-ctl: %s is paused (%s): its slots stay paused; this run goes ahead\n", name, acc.Paused)
	}
	fin, err := followRun(ctx, g, p, name, req, acc)
	if err != nil {
		return err
	}
	printRunEnd(g, name, fin.RunID, runtrace.Outcome(fin.Outcome), runtrace.Reason(fin.Reason), fin.Detail, fin.Duration)
	if fin.ExitStatus != 0 {
		return exitStatus{code: fin.ExitStatus}
	}
	return nil
}

// refusedRun is the agent's refusal as an exit status: 1 for a run in
// flight or an agent that stops, 2 for a job its config does not have.
func refusedRun(name string, resp control.Response) error {
	err := fmt.Errorf("%s: %s", name, resp.Refused)
	switch resp.Code {
	case control.CodeUnknown, control.CodeUsage:
		return configError{err}
	}
	return err
}

// followRun prints the run's output as the agent copies it to the stream
// file, until the run's verdict comes. The first Ctrl-C asks the agent to
// end the run; its verdict (failed/interrupted) still comes.
func followRun(ctx context.Context, g *globals, p state.Paths, name string, req control.Request, acc control.RunAccepted) (control.RunFinished, error) {
	defer os.Remove(control.StreamPath(p, req.ID))
	var in io.ReadCloser
	interrupted, readerGone := false, false
	var deadline time.Time // set once the run is asked to end
	lastAlive := time.Now()
	for {
		if in == nil && acc.Stream != "" {
			if f, err := fsutil.Open(acc.Stream); err == nil {
				in = f
				defer f.Close()
			}
		}
		if in != nil && !readerGone {
			if _, err := io.Copy(g.stdout, in); err != nil {
				readerGone = true // nobody reads our output any more: the run goes on
			}
		}
		resp, ok, err := control.Poll(p, req, 2)
		if err != nil {
			return control.RunFinished{}, err
		}
		if ok {
			if in != nil && !readerGone {
				io.Copy(g.stdout, in) // what came after the last look: the agent closed the stream first
			}
			var fin control.RunFinished
			if err := resp.Decode(&fin); err != nil {
				return fin, fmt.Errorf("the agent's answer: %w", err)
			}
			return fin, nil
		}
		if ctx.Err() != nil && !interrupted {
			interrupted = true
			deadline = time.Now().Add(30 * time.Second)
			why := fmt.Sprintf("interrupted by %s (Ctrl-C on 'svc-ctl run')", state.Who())
			if _, r, err := control.Send(context.Background(), p, control.KindInterrupt, control.InterruptArgs{Request: req.ID, Why: why}, 10*time.Second); err != nil {
				fmt.Fprintf(g.stderr, "svc-ctl: could not ask the agent to end the run: %v\n", err)
			} else if r.Refused != "" {
				fmt.Fprintf(g.stderr, "svc-ctl: %s\n", r.Refused)
			}
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return control.RunFinished{}, fmt.Errorf("the agent did not finish run #%d within 30s of the interrupt: see 'svc-ctl runs --job %s'", acc.RunID, name)
		}
		if time.Since(lastAlive) > time.Second {
			lastAlive = time.Now()
			if _, err := control.Running(p); errors.Is(err, control.ErrNoAgent) {
				if resp, ok, _ := control.Poll(p, req, 2); ok { // its last word landed as it left
					var fin control.RunFinished
					return fin, resp.Decode(&fin)
				}
				return control.RunFinished{}, fmt.Errorf("the agent stopped before run #%d ended: the next agent judges the row (failed/abandoned) and stops what it left running", acc.RunID)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runHere runs the job in this process: no agent runs.
func runHere(ctx context.Context, g *globals, cfg *config.Config, j *config.Job) error {
	fmt.Fprintf(g.stderr, "svc-ctl: no agent is running: %s runs in this process, recorded as the agent records it\n", j.Name)
	led, closeLedger := openLedger(g, cfg)
	defer closeLedger()
	by := state.Who()
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	stop := context.AfterFunc(ctx, func() {
		cancel(fmt.Errorf("interrupted by %s (Ctrl-C on 'svc-ctl run')", by))
	})
	defer stop()
	req := jobs.RunNowRequest{Paths: state.PathsOf(cfg), Job: j, Output: g.stdout, Redactor: redact.New(cfg.SecretValues()...), By: by}
	if f, ok := led.(*notify.Funnel); ok {
		req.Runs = f.Store()
	}
	began := time.Now()
	res, runID, recErr := jobs.RunNow(runCtx, led, req)
	if errors.Is(recErr, jobs.ErrBusy) {
		return fmt.Errorf("%s: %w", j.Name, recErr)
	}
	if recErr != nil {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: run not recorded in run_trace: %v\n", recErr)
	}
	printRunEnd(g, j.Name, runID, res.Outcome, res.Reason, res.Detail, time.Since(began))
	if code := res.ExitStatus(); code != 0 {
		return exitStatus{code: code}
	}
	return nil
}

// printRunEnd is the run's last line, on stderr: its verdict, in words, and
// where to look.
func printRunEnd(g *globals, name string, runID int64, outcome runtrace.Outcome, reason runtrace.Reason, detail map[string]any, took time.Duration) {
	line := fmt.Sprintf("%s: %s/%s", name, outcome, reason)
	if words := runWords(reason, detail); words != "" {
		line += ": " + words
	}
	line += " after " + took.Round(time.Millisecond).String()
	if runID > 0 {
		line += fmt.Sprintf(" (run #%d; 'svc-ctl why --run %d')", runID, runID)
	}
	fmt.Fprintln(g.stderr, line)
}

// runWords says a run's verdict in a few words from its detail.
func runWords(reason runtrace.Reason, d map[string]any) string {
	switch {
	case reason == runtrace.ReasonExitNonzero:
		return fmt.Sprintf("exit code %v", d["exit_code"])
	case reason == runtrace.ReasonTimeout:
		return fmt.Sprintf("ran past its timeout %v; its process tree was killed", d["timeout"])
	}
	for _, k := range []string{"why", "error", "result_error"} {
		if s, ok := d[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
