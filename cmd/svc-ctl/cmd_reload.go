package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/agent"
	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/state"
)

type reloadOptions struct {
	stopRemoved         bool
	allowMissingInclude bool
	timeout             time.Duration
	json                bool
}

func (o *reloadOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.stopRemoved, "stop-removed", false, "also stop the processes of services the file no longer has (default: they keep running, unsupervised)")
	f.BoolVar(&o.allowMissingInclude, "allow-missing-include", false, "take the file even when an include that matched files matches none now (refused without it)")
	f.DurationVar(&o.timeout, "timeout", time.Minute, "how long to wait for the agent's answer")
	f.BoolVar(&o.json, "json", false, "print the agent's answer (its run_trace row) as JSON")
}

func newReloadCommand(g *globals) *cobra.Command {
	var o reloadOptions
	cmd := &cobra.Command{
		Use:         "reload [--stop-removed]",
		Annotations: trust(trustRun),
		Short:       "Make the running agent re-read its config, and print what it did",
		Long: `Ask the running agent to re-read its config file (SIGHUP on Linux and macOS,
a control request on Windows) and wait for its answer, a row in run_trace:

  reloaded: services added: cache; replaced: proxy; 3 unchanged
  config-invalid: svc-ctl.toml:12: service "cache".command: empty command ...

Services and jobs the file adds are started, removed ones are no longer
supervised (their processes keep running unless --stop-removed), changed ones
get their new definition; a service is replaced only when what it runs changed
(command, env, env_file, dir, user, group, log, limits). Unchanged ones are not
touched. An invalid file is refused and the config in force stays.

Exit status: 0 reloaded, 2 refused (config-invalid), 1 no agent or no answer.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runReload(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runReload(ctx context.Context, g *globals, o reloadOptions, _ []string) error {
	p, invalid, err := reloadTarget(g)
	if err != nil {
		return err
	}
	req, err := agent.WriteReloadRequest(p, o.stopRemoved, o.allowMissingInclude)
	if err != nil {
		return err
	}
	if err := agent.RequestReload(p); err != nil {
		os.Remove(p.ReloadRequest())
		if errors.Is(err, agent.ErrNoAgent) {
			return fmt.Errorf("%w: nothing to reload (the agent reads the file when it starts)%s", err, invalidNote(invalid))
		}
		return err
	}
	row, err := waitReloadRow(ctx, p, req, o.timeout)
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(g.stdout, row); err != nil {
			return err
		}
	} else {
		printReloadRow(g, row)
	}
	if row.Reason == runtrace.ReasonConfigInvalid {
		return exitStatus{code: exitUsage}
	}
	return nil
}

// reloadTarget finds the agent's state dir. The file is loaded as
// everything that runs loads it (a config others can write is refused, and
// so is its state dir), but a file that is merely invalid is not refused
// here: the agent must see it, refuse it and say so in run_trace; its state
// dir is then read as leniently as can be.
func reloadTarget(g *globals) (p state.Paths, invalid error, err error) {
	cfg, err := loadConfigToRun(g)
	if err == nil {
		return state.PathsOf(cfg), nil, nil
	}
	var ce configError
	if !errors.As(err, &ce) || errors.Is(err, config.ErrInsecurePermissions) || errors.Is(err, fs.ErrNotExist) {
		return p, nil, err
	}
	path, _, rerr := config.Resolve(g.configPath)
	if rerr != nil {
		return p, nil, err
	}
	if perr := config.CheckPermissions(path); perr != nil && !config.UserMode() {
		return p, nil, configError{perr}
	}
	dir, _ := config.PeekStateDir(path)
	p = state.Paths{State: dir}
	if cerr := state.Check(p, !config.UserMode()); cerr != nil {
		return p, nil, configError{cerr}
	}
	return p, err, nil
}

func invalidNote(invalid error) string {
	if invalid == nil {
		return ""
	}
	return "; and the file does not load: " + invalid.Error()
}

// waitReloadRow waits for the agent row that answers req (it names the
// request's id), reading the ledger read-only.
func waitReloadRow(ctx context.Context, p state.Paths, req agent.ReloadRequest, timeout time.Duration) (*runtrace.Run, error) {
	deadline := time.Now().Add(timeout)
	for {
		if row := findReloadRow(ctx, p, req); row != nil {
			return row, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the agent did not answer the reload within %s: see 'svc-ctl logs agent' (its reload may still be waiting for a cycle in progress)", timeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func findReloadRow(ctx context.Context, p state.Paths, req agent.ReloadRequest) *runtrace.Run {
	st, err := runtrace.Open(p.DB(), runtrace.Options{ReadOnly: true, BusyTimeout: time.Second})
	if err != nil {
		return nil
	}
	defer st.Close()
	rs, err := st.Runs(ctx, runtrace.Filter{JobID: runtrace.AgentID, Since: req.At.Add(-time.Second), Limit: 20})
	if err != nil {
		return nil
	}
	for i := range rs {
		var d struct {
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(rs[i].Detail, &d) == nil && d.RequestID == req.ID && rs[i].Outcome != runtrace.OutcomeRunning {
			return &rs[i]
		}
	}
	return nil
}

func printReloadRow(g *globals, r *runtrace.Run) {
	var d struct {
		Message string            `json:"message"`
		Errors  []string          `json:"errors"`
		InForce string            `json:"in_force"`
		Stopped map[string]string `json:"stopped"`
		Config  string            `json:"config"`
	}
	json.Unmarshal(r.Detail, &d)
	if r.Reason == runtrace.ReasonConfigInvalid {
		fmt.Fprintf(g.stdout, "config-invalid: the agent refused %s; %s:\n", d.Config, d.InForce)
		for _, e := range d.Errors {
			fmt.Fprintf(g.stdout, "  %s\n", e)
		}
		return
	}
	fmt.Fprintln(g.stdout, d.Message)
	for name, how := range d.Stopped {
		fmt.Fprintf(g.stdout, "  %s: %s\n", name, how)
	}
}
