package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/report"
)

type drillOptions struct {
	timeout   string
	json, utc bool
}

func (o *drillOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.timeout, "timeout", "", "how long to wait (default: interval + start_timeout + probe time + 5s)")
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
}

func newDrillCommand(g *globals) *cobra.Command {
	var o drillOptions
	cmd := &cobra.Command{
		Use:         "drill NAME",
		Annotations: trust(trustRun),
		Short:       "Rehearse a failure: kill the service and time how long the agent takes to bring it back",
		Long: `Kill the process of the service's recorded instance that serves (the member
listening on its local health port, else its pid_file's process, else the
leader), with SIGKILL, identity-checked (a reused PID is never signalled), as
a crash would, and wait for the agent — not this command — to bring it back
healthy. Prints the time it took, the run_trace row and the snapshot that prove
it. Exit 1 when it does not come back in time. The agent must be running.`,
		ValidArgsFunction: completeService(g),
		Args:              usageArgs(cobra.ExactArgs(1)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runDrill(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runDrill(ctx context.Context, g *globals, o drillOptions, args []string) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	svc := cfg.Service(args[0])
	if svc == nil {
		return unknownService(cfg, args[0])
	}
	if err := readableState(cfg); err != nil {
		return err
	}
	timeout := svc.Interval + svc.StartTimeout + svc.Health.Confirm + 2*svc.Health.Timeout + 5*time.Second
	if o.timeout != "" {
		if timeout, err = config.ParseDuration(o.timeout); err != nil || timeout <= 0 {
			return usageError{durationFlagError("--timeout", o.timeout, err, "30s or 2m")}
		}
	}
	rep, err := report.Drill(ctx, cfg, args[0], timeout)
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(g.stdout, rep); err != nil {
			return err
		}
	} else {
		printDrill(g, rep, o.utc)
	}
	if !rep.Restored {
		return errSilent
	}
	return nil
}

func printDrill(g *globals, r *report.DrillReport, utc bool) {
	procs := "processes"
	if r.Members == 1 {
		procs = "process"
	}
	// The member killed is the one that serves (a crash of the service),
	// which a launcher that forked its server is not.
	fmt.Fprintf(g.stdout, "killed %s: pid %d %s (%s; %d %s in the instance started as pid %d) at %s\n", r.Service, r.Killed.PID, r.Killed.Exe,
		r.Serving, r.Members, procs, r.Leader, fmtTime(r.KilledAt, utc))
	if !r.Restored {
		fmt.Fprintf(g.stdout, "FAIL: %s; see 'svc-ctl why %s' and 'svc-ctl status'\n", r.Why, r.Service)
		return
	}
	fmt.Fprintf(g.stdout, "PASS: the agent brought it back in %s (pid %d)\n", (time.Duration(r.TookMS) * time.Millisecond).String(), r.NewPID)
	if row := r.Row; row != nil {
		fmt.Fprintf(g.stdout, "  run_trace #%d %s/%s trigger %s, started %s\n", row.ID, row.Outcome, row.Reason, row.Trigger, fmtTime(row.StartedAt, utc))
	}
	if s := r.Snapshot; s != nil {
		fmt.Fprintf(g.stdout, "  snapshot at %s: reason %q, %d log lines kept\n", fmtTime(s.Time, utc), s.Reason, len(s.LogTail))
	}
}
