package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/control"
	"svcctl/runtrace"
)

type reloadOptions struct {
	keepRemoved, stopRemoved bool
	allowMissingInclude      bool
	timeout                  time.Duration
	json                     bool
}

func (o *reloadOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.keepRemoved, "keep-removed", false, "leave running the processes of services the file no longer has, unsupervised (default: they are stopped)")
	f.BoolVar(&o.stopRemoved, "stop-removed", false, "stop the processes of services the file no longer has (the default; kept for scripts)")
	f.MarkHidden("stop-removed")
	f.BoolVar(&o.allowMissingInclude, "allow-missing-include", false, "take the file even when an include that matched files matches none now (refused without it)")
	f.DurationVar(&o.timeout, "timeout", time.Minute, "how long to wait for the agent's answer")
	f.BoolVar(&o.json, "json", false, "print the agent's answer (its run_trace row) as JSON")
}

func newReloadCommand(g *globals) *cobra.Command {
	var o reloadOptions
	cmd := &cobra.Command{
		Use:         "reload [--keep-removed]",
		Annotations: trust(trustRun),
		Short:       "Make the running agent re-read its config, and print what it did",
		Long: `Ask the running agent to re-read its config file (SIGHUP on Linux and macOS,
its wake event on Windows) and wait for its answer, also a row in run_trace:

  reloaded: services added: cache; services removed: sync; replaced: proxy; 3 unchanged
    sync: stopped (2 processes: 2 on SIGTERM, in 35ms)
  config-invalid: svc-ctl.toml:12: service "cache".command: empty command ...

Services and jobs the file adds are started; services it removes are stopped,
every process of their tree, each identity-checked (recorded ok/stopped with
the pid), as supervisord's update does; a removed job's run in flight
finishes and is recorded. Changed ones get their new definition; a service is
replaced only when what it runs changed (command, env, env_file, dir, user,
group, log, limits). Unchanged ones are not touched. A file that cannot be
read or is invalid is refused as a whole (never read as "everything was
removed") and the config in force stays.

A file whose include matched files when the config in force was loaded and
matches none now is refused too: a deploy caught between emptying conf.d and
filling it again must not read as its services and jobs removed.
--allow-missing-include takes it, when they are meant to go.

--keep-removed leaves the removed services' processes running, unsupervised,
and prints each pid left and how to stop it: 'svc-ctl stop NAME' still stops
it (identity-checked) until it is gone, across an agent restart.

Changed default: removed services used to keep running unless --stop-removed
was given; they are now stopped unless --keep-removed is. --stop-removed is
still accepted and changes nothing.

Exit status: 0 reloaded, 2 refused (config-invalid), 1 no agent or no answer.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runReload(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runReload(ctx context.Context, g *globals, o reloadOptions, _ []string) error {
	if o.keepRemoved && o.stopRemoved {
		return usageError{errors.New("--keep-removed and --stop-removed contradict each other: pass one (stopping is the default)")}
	}
	p, invalid, err := agentTarget(g)
	if err != nil {
		return err
	}
	_, resp, err := control.Send(ctx, p, control.KindReload,
		control.ReloadArgs{KeepRemoved: o.keepRemoved, AllowMissingInclude: o.allowMissingInclude}, o.timeout)
	if errors.Is(err, control.ErrNoAgent) {
		return fmt.Errorf("%w: nothing to reload (the agent reads the file when it starts)%s", err, invalidNote(invalid))
	}
	if err != nil {
		return err
	}
	if resp.Refused != "" {
		return fmt.Errorf("the agent refused the reload: %s", resp.Refused)
	}
	var done control.ReloadDone
	if err := resp.Decode(&done); err != nil {
		return fmt.Errorf("the agent's answer: %w", err)
	}
	if o.json {
		if err := writeJSON(g.stdout, done); err != nil {
			return err
		}
	} else {
		printReload(g, done)
	}
	if done.Reason == string(runtrace.ReasonConfigInvalid) {
		return exitStatus{code: exitUsage}
	}
	return nil
}

func invalidNote(invalid error) string {
	if invalid == nil {
		return ""
	}
	return "; and the file does not load: " + invalid.Error()
}

// printReload prints the agent's answer: its summary, then what became of
// each removed service's processes.
func printReload(g *globals, r control.ReloadDone) {
	var d struct {
		Message string            `json:"message"`
		Errors  []string          `json:"errors"`
		InForce string            `json:"in_force"`
		Stopped map[string]string `json:"stopped"`
		Kept    map[string]string `json:"kept"`
		Config  string            `json:"config"`
	}
	json.Unmarshal(r.Detail, &d)
	if r.Reason == string(runtrace.ReasonConfigInvalid) {
		fmt.Fprintf(g.stdout, "config-invalid: the agent refused %s; %s:\n", d.Config, d.InForce)
		for _, e := range d.Errors {
			fmt.Fprintf(g.stdout, "  %s\n", e)
		}
		return
	}
	fmt.Fprintln(g.stdout, d.Message)
	for _, m := range []map[string]string{d.Stopped, d.Kept} {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(g.stdout, "  %s: %s\n", name, m[name])
		}
	}
}
