package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/internal/redact"
	"svcctl/jobs"
	"svcctl/notify"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

type execOptions struct{ scheduled bool }

func (o *execOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.scheduled, "scheduled", false, "record the run as serving the slot due now (trigger schedule)")
}

func newExecCommand(g *globals) *cobra.Command {
	var o execOptions
	cmd := &cobra.Command{
		Use:         "exec JOB [--scheduled] -- CMD [ARGS...]",
		Annotations: trust(trustRun),
		Short:       "Run CMD and record it as a run of JOB (for jobs another scheduler runs)",
		Long: `Run CMD (argv, no shell) with the job's timeout, record it in run_trace as a run
of job:JOB, and exit with CMD's exit code. Put it in front of a command that
cron, launchd or Task Scheduler runs, and declare the job with external = true:
then 'svc-ctl missing' and 'why' see its slots too.

With --scheduled the run is recorded as serving the slot that is due now
(trigger schedule); without it, as a manual run.`,
		Example:           `  svc-ctl exec nightly-backup --scheduled -- /usr/local/bin/backup --all`,
		ValidArgsFunction: completeJob(g),
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 || cmd.ArgsLenAtDash() != 1 {
				return errors.New("usage: svc-ctl exec JOB -- CMD [ARGS...] (the -- is required)")
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error { return runExec(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runExec(ctx context.Context, g *globals, o execOptions, args []string) error {
	name, argv := args[0], args[1:]
	cfg, err := loadConfigToRun(g)
	if err != nil {
		return err
	}
	j := cfg.Job(name)
	if j == nil {
		return usageError{fmt.Errorf("%w (declare it in %s with external = true)", watchdog.UnknownJob(cfg, name), cfg.Path)}
	}
	led, closeLedger := openLedger(g, cfg)
	defer closeLedger()
	req := jobs.ExecRequest{Job: j, Argv: argv, Scheduled: o.scheduled,
		Stdin: os.Stdin, Stdout: g.stdout, Stderr: g.stderr, Redactor: redact.New(cfg.SecretValues()...)}
	if f, ok := led.(*notify.Funnel); ok {
		req.Runs = f.Store()
	}
	res, recErr := jobs.Exec(ctx, led, req)
	if res.Reason == runtrace.ReasonOverlap {
		fmt.Fprintf(g.stderr, "svc-ctl: %s: %s: not run again (recorded skipped/overlap)\n", name, res.Detail["why"])
	}
	if msg, ok := res.Detail["error"].(string); ok {
		fmt.Fprintf(g.stderr, "svc-ctl: %s\n", msg)
	}
	if recErr != nil {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: run not recorded in run_trace: %v\n", recErr)
	}
	if code := res.ExitStatus(); code != 0 {
		return exitStatus{code: code}
	}
	return nil
}
