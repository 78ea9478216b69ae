package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"svcctl/agent"
	"svcctl/config"
	"svcctl/runtrace"
)

func init() { addCommand(newExecCommand) }

// exitStatus passes a wrapped command's exit code through.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newExecCommand(g *globals) *cobra.Command {
	var scheduled bool
	cmd := &cobra.Command{
		Use:   "exec JOB [--scheduled] -- CMD [ARGS...]",
		Short: "Run CMD and record it as a run of JOB (for jobs another scheduler runs)",
		Long: `Run CMD (argv, no shell) with the job's timeout, record it in run_trace as a run
of job:JOB, and exit with CMD's exit code. Put it in front of a command that
cron, launchd or Task Scheduler runs, and declare the job with external = true:
then 'svc-ctl missing' and 'why' see its slots too.

With --scheduled the run is recorded as serving the slot that is due now
(trigger schedule); without it, as a manual run.`,
		Example: `  svc-ctl exec nightly-backup --scheduled -- /usr/local/bin/backup --all`,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return usageError{errors.New("usage: svc-ctl exec JOB -- CMD [ARGS...] (the -- is required)")}
			}
			return runExec(ctxOf(cmd.Context()), g, args[0], args[1:], scheduled)
		},
	}
	cmd.Flags().BoolVar(&scheduled, "scheduled", false, "record the run as serving the slot due now (trigger schedule)")
	return cmd
}

func runExec(ctx context.Context, g *globals, name string, argv []string, scheduled bool) error {
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return err
	}
	j := cfg.Job(name)
	if j == nil {
		return usageError{fmt.Errorf("%w: job %q is not in %s (declare it with external = true)", agent.ErrUnknownName, name, cfg.Path)}
	}
	rec, closeRec := openLedger(g, cfg)
	defer closeRec()
	trigger, slot := runtrace.TriggerManual, time.Time{}
	if scheduled {
		trigger = runtrace.TriggerSchedule
		slot = dueSlot(ctx, rec, j)
	}
	id, recErr := rec.Begin(context.WithoutCancel(ctx), runtrace.JobID(name), trigger, slot, time.Now().UTC())
	res := execOnce(ctx, j, argv, g)
	if recErr == nil {
		recErr = rec.Finish(context.WithoutCancel(ctx), id, res.Outcome, res.Reason, res.Detail, time.Now().UTC())
	}
	if recErr != nil {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: run not recorded in run_trace: %v\n", recErr)
	}
	if res.ExitCode != 0 {
		return exitStatus{res.ExitCode}
	}
	return nil
}

// dueSlot is the slot this run serves: the newest slot at or before now
// (allowing a minute of clock skew), registering the job if no agent has.
func dueSlot(ctx context.Context, rec agent.Recorder, j *config.Job) time.Time {
	now := time.Now().UTC()
	reg := now.Add(-366 * 24 * time.Hour)
	type registrar interface {
		Register(ctx context.Context, jobID, spec string, at time.Time) (time.Time, error)
	}
	if r, ok := rec.(registrar); ok {
		if at, err := r.Register(ctx, runtrace.JobID(j.Name), agent.JobSpec(j), now); err == nil {
			reg = at
		}
	}
	s, err := agent.JobSchedule(j, reg)
	if err != nil {
		return time.Time{}
	}
	slots := s.Slots(now.Add(-max(j.Grace, time.Hour)-time.Minute), now.Add(time.Minute), 0)
	if len(slots) == 0 {
		return time.Time{}
	}
	return slots[len(slots)-1]
}

func execOnce(ctx context.Context, j *config.Job, argv []string, g *globals) agent.JobResult {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, j.Timeout)
	defer cancel()
	tail := &tailBuffer{max: 4 << 10}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Stdin = os.Stdin
	c.Stdout = io.MultiWriter(g.stdout, tail)
	c.Stderr = io.MultiWriter(g.stderr, tail)
	c.WaitDelay = 5 * time.Second
	err := c.Run()
	d := map[string]any{"argv0": argv[0], "duration_ms": time.Since(start).Milliseconds(), "via": "svc-ctl exec"}
	var ee *exec.ExitError
	switch {
	case err == nil:
		d["exit_code"] = 0
		return agent.JobResult{Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted, Detail: d}
	case ctx.Err() == context.DeadlineExceeded:
		d["timeout"] = j.Timeout.String()
		d["output_tail"] = tail.lines()
		return agent.JobResult{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonTimeout, Detail: d, ExitCode: 124}
	case errors.As(err, &ee):
		d["exit_code"] = ee.ExitCode()
		d["output_tail"] = tail.lines()
		code := ee.ExitCode()
		if code <= 0 {
			code = 1
		}
		return agent.JobResult{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonExitNonzero, Detail: d, ExitCode: code}
	default:
		d["error"] = err.Error()
		fmt.Fprintf(g.stderr, "svc-ctl: %v\n", err)
		return agent.JobResult{Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonSpawnError, Detail: d, ExitCode: 127}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimRight(string(t.b), "\n")
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	return ls[max(0, len(ls)-20):]
}
