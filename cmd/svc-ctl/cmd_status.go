package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/internal/svcenv"
	"svcctl/report"
	"svcctl/state"
)

type statusOptions struct{ json, env, utc bool }

func (o *statusOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.json, "json", false, "print as JSON")
	f.BoolVar(&o.utc, "utc", false, "print times in UTC")
	f.BoolVar(&o.env, "env", false, "list the environment variable names a start of NAME gives it (values are never shown)")
}

func newStatusCommand(g *globals) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:         "status [NAME] [--env]",
		Annotations: trust(trustRead),
		Short:       "Show the agent, every service and every job, from the evidence on disk",
		Long: `Show the agent (running, stopped or stale, from its heartbeat and lock), the
ledger's health, and per service: state, last probe, last cycle, last restart
(the watchdog's or a person's), restarts in 24 h (the watchdog's), pause. Per
job: next slot, last run, missing slots in 7 days.

With --env, list the names of the variables a start of NAME gives it (the
base environment, then env_file, then env; values are never shown). It is
the same whoever starts it: the agent at boot or you from this shell.

Exit status: 0 when the agent runs, can write its ledger, and every service
that is not paused is healthy; 1 otherwise. It works when the agent is not
running (and says so), and when the disk is full (the agent's own report,
agent.status, says what waits to be written and why).`,
		ValidArgsFunction: completeName(g),
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if o.env && len(args) != 1 {
				return errors.New("--env needs the NAME of a service or job")
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		}),
		RunE: func(cmd *cobra.Command, args []string) error { return runStatus(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runStatus(ctx context.Context, g *globals, o statusOptions, args []string) error {
	cfg, err := loadConfigOrState(ctx, g)
	if err != nil {
		return err
	}
	if o.env {
		return printEnv(g, cfg, args[0], o.json)
	}
	rep, err := report.BuildStatus(ctx, cfg, time.Now())
	if err != nil {
		return err
	}
	report.SampleCPU(ctx, rep, 250*time.Millisecond)
	info := installInfo(cfg)
	rep.Install = &info
	if g.broken != nil {
		rep.ConfigBroken = g.broken.Error()
	}
	if len(args) == 1 {
		if !narrow(rep, args[0]) {
			return unknownName(cfg, args[0])
		}
	}
	if o.json {
		if err := writeJSON(g.stdout, rep); err != nil {
			return err
		}
	} else {
		printStatus(g.stdout, rep, o.utc)
	}
	if !rep.Healthy() || rep.ConfigBroken != "" {
		return errSilent
	}
	return nil
}

// envVar is one variable a start gives, without its value.
type envVar struct {
	Name string `json:"name"`
	From string `json:"from"` // base | config (env_file and env)
}

// printEnv lists what `svc-ctl start NAME` (or the agent) gives NAME: the
// base environment (internal/svcenv) and the config's env_file and env.
func printEnv(g *globals, cfg *config.Config, name string, asJSON bool) error {
	var env map[string]string
	var runAs config.RunAs
	var envFile string
	switch {
	case cfg.Service(name) != nil:
		env, runAs, envFile = cfg.Service(name).Env, cfg.Service(name).RunAs, cfg.Service(name).EnvFile
	case cfg.Job(name) != nil:
		env, runAs, envFile = cfg.Job(name).Env, cfg.Job(name).RunAs, cfg.Job(name).EnvFile
	default:
		return unknownName(cfg, name)
	}
	if envFile != "" && slices.Contains(cfg.UnreadEnvFiles, envFile) {
		return state.Denied(envFile, fs.ErrPermission) // its names are unknown to this process
	}
	id, err := runAs.Identity()
	if err != nil {
		return fmt.Errorf("%s runs as %s: %w", name, runAs.User, err)
	}
	var vars []envVar
	for _, n := range svcenv.Names(id, env) {
		from := "base"
		if _, ok := env[n]; ok {
			from = "config"
		}
		vars = append(vars, envVar{Name: n, From: from})
	}
	if asJSON {
		return writeJSON(g.stdout, map[string]any{"name": name, "env": vars})
	}
	fmt.Fprintf(g.stdout, "%s gets these variables, whoever starts it (values not shown):\n", name)
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	for _, v := range vars {
		fmt.Fprintf(w, "  %s\t%s\n", v.Name, v.From)
	}
	return w.Flush()
}

// narrow keeps the one service or job named; false when there is none.
func narrow(rep *report.StatusReport, name string) bool {
	for _, s := range rep.Services {
		if s.Name == name {
			rep.Services, rep.Jobs = []report.ServiceStatus{s}, nil
			return true
		}
	}
	for _, j := range rep.Jobs {
		if j.Name == name {
			rep.Services, rep.Jobs = nil, []report.JobStatus{j}
			return true
		}
	}
	return false
}
