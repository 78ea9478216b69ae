package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"svcctl/agent/agentlog"
	"svcctl/agent/reloadplan"
	"svcctl/config"
	"svcctl/control"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// Reload (docs/architecture.md, "The agent"): SIGHUP or `svc-ctl reload` makes the agent re-read its config file, through the same checked
// load as at start. It never stops the agent.
//
//   - An invalid file (or one that moves the state dir) is refused: one
//     failed/config-invalid agent row with the errors (and an `agent` event);
//     the config in force stays.
//   - Services and jobs the file adds start their loops; removed ones stop
//     theirs, and a removed service's instance is stopped (identity-checked,
//     the whole tree, recorded ok/stopped) unless the request says
//     keep_removed; a removed job's run in flight finishes and is recorded.
//     Changed ones restart their loop with the new definition, and only
//     when what the instance runs changed (command, env and env_file, dir,
//     user, group, log, limits) is the service itself replaced, at the new
//     loop's first cycle, at once (ok/restarted, cause manual); how it is
//     stopped (stop_signal, kill_mode, stop_command) and its pid_file apply
//     to its next stop and next look, without a new instance. Unchanged
//     ones are not touched: same loop, same instance.
//   - [agent] log_level, retention, drain_timeout and on_panic apply at
//     once; heartbeat and metrics_listen, and [[notify]] channels, need an
//     agent restart: the reloaded row and agent.status list them.
//
// One ok/reloaded agent row says what was done, with the request's id.

// reload re-reads the config once, as req asks (the zero request: a bare
// SIGHUP, the defaults), and returns its row as recorded.
func (a *Agent) reload(ctx context.Context, req control.Request, args control.ReloadArgs) control.ReloadDone {
	old := a.config()
	next, err := a.loadForReload(old)
	if err == nil && !args.AllowMissingInclude {
		err = reloadplan.MissingIncludes(old, next)
	}
	if err != nil {
		return a.refuseReload(old, req, err)
	}
	plan, eff := reloadplan.Compare(old, next)
	a.log.Info("agent.reloading", "config", old.Path, "request_id", req.ID)
	detail := map[string]any{"config": old.Path, "plan": plan}
	if req.ID != "" {
		detail["request_id"] = req.ID
	}
	for _, name := range plan.RemovedServices {
		a.stopService(name, true)
	}
	for name := range plan.ChangedServices {
		a.stopService(name, false)
	}
	for _, name := range plan.RemovedJobs {
		a.jobs.Stop(name, true)
	}
	for name := range plan.ChangedJobs {
		a.jobs.Stop(name, false)
	}
	if len(plan.RemovedServices) > 0 {
		if args.KeepRemoved {
			detail["kept"] = a.keepRemoved(old, plan.RemovedServices)
		} else {
			detail["stopped"] = a.stopRemoved(ctx, old, plan.RemovedServices)
		}
	}
	a.putInForce(old, eff, plan)
	for _, name := range plan.AddedServices {
		state.ForgetRemoved(a.paths, name) // supervised again: it adopts what runs
		a.startService(eff.Service(name), nil)
	}
	for name, keys := range plan.ChangedServices {
		var first *watchdog.Request
		if reloadplan.Replaces(keys) {
			first = &watchdog.Request{Trigger: runtrace.TriggerManual, Replace: true, Reload: true, Cause: watchdog.CauseManual,
				Why: "config reloaded: " + strings.Join(keys, ", ") + " changed"}
		}
		a.startService(eff.Service(name), first)
	}
	for _, name := range plan.AddedJobs {
		a.jobs.Start(eff.Job(name))
	}
	for name := range plan.ChangedJobs {
		a.jobs.Start(eff.Job(name))
	}
	a.writeReport()
	a.log.Info("agent.reloaded", "config", old.Path, "request_id", req.ID, "added", len(plan.AddedServices)+len(plan.AddedJobs),
		"removed", len(plan.RemovedServices)+len(plan.RemovedJobs), "changed", len(plan.ChangedServices)+len(plan.ChangedJobs),
		"replaced", plan.Replaced, "unchanged", plan.Unchanged, "needs_restart", plan.NeedsRestart)
	detail["message"] = plan.Summary()
	a.record(runtrace.AgentID, runtrace.TriggerManual, runtrace.OutcomeOK, runtrace.ReasonReloaded, detail)
	return reloadDone(runtrace.OutcomeOK, runtrace.ReasonReloaded, detail)
}

// loadForReload reads the config file again through the load the agent
// started with (config.LoadToRun: a file others can write is refused).
func (a *Agent) loadForReload(old *config.Config) (*config.Config, error) {
	if old.Path == "" {
		return nil, errors.New("the agent's config did not come from a file: there is nothing to re-read")
	}
	load := a.o.Load
	if load == nil {
		load = config.LoadToRun
	}
	if err := reloadplan.EmptyFile(old); err != nil {
		return nil, err
	}
	next, err := load(old.Path)
	if err != nil {
		return nil, err
	}
	if err := reloadplan.SameStateDir(old, next); err != nil {
		return nil, err
	}
	return next, nil
}

// refuseReload records the refusal: failed/config-invalid with every error,
// and the config in force stays.
func (a *Agent) refuseReload(old *config.Config, req control.Request, err error) control.ReloadDone {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	in := a.loaded.Load()
	kept := "the config loaded at " + in.LoadedAt.Format(time.RFC3339) + " stays in force"
	a.log.Error("agent.reload_refused", "config", old.Path, "err", err, "request_id", req.ID, "hint", kept)
	detail := map[string]any{"config": old.Path, "why": lines[0], "errors": lines, "in_force": kept}
	if req.ID != "" {
		detail["request_id"] = req.ID
	}
	a.record(runtrace.AgentID, runtrace.TriggerManual, runtrace.OutcomeFailed, runtrace.ReasonConfigInvalid, detail)
	return reloadDone(runtrace.OutcomeFailed, runtrace.ReasonConfigInvalid, detail)
}

// stopRemoved stops the instance of each removed service (the whole tree,
// identity-checked, under the service's lock) and records it: ok/stopped
// with the pid and how each process ended, or failed/interrupted when it
// could not be stopped. It says how each ended, for the reload's row.
func (a *Agent) stopRemoved(ctx context.Context, old *config.Config, names []string) map[string]string {
	out := map[string]string{}
	for _, name := range names {
		svc := old.Service(name)
		rep, err := a.sup.StopInstance(ctx, svc)
		detail := map[string]any{"why": "removed from the config by a reload", "pid": rep.PID, "members": rep.Members}
		switch {
		case err != nil:
			out[name] = "not stopped: " + err.Error()
			detail["error"] = err.Error()
			a.record(runtrace.WatchdogID(name), runtrace.TriggerManual, runtrace.OutcomeFailed, runtrace.ReasonInterrupted, detail)
			continue
		case rep.PID == 0:
			out[name] = rep.Result // no instance recorded: nothing ran, nothing to record
			continue
		}
		out[name] = rep.Result
		detail["message"] = "removed from the config: " + rep.Result
		a.record(runtrace.WatchdogID(name), runtrace.TriggerManual, runtrace.OutcomeOK, runtrace.ReasonStopped, detail)
		state.ForgetRemoved(a.paths, name)
	}
	return out
}

// keepRemoved leaves the instances of removed services running
// (reload --keep-removed) and says, for each, which pid is left and how to
// stop it; the record it writes lets `svc-ctl stop NAME` do so later.
func (a *Agent) keepRemoved(old *config.Config, names []string) map[string]string {
	out := map[string]string{}
	for _, name := range names {
		inst, err := a.sup.Instance(name)
		if err != nil {
			out[name] = "no instance recorded"
			continue
		}
		if t, err := proc.Members(inst); err == nil && t.Len() == 0 {
			out[name] = fmt.Sprintf("pid %d: no process of the instance was running", inst.PID)
			continue
		}
		svc := old.Service(name)
		r := state.Removed{At: time.Now().UTC(), Config: old.Path, PID: inst.PID, StopTimeout: svc.StopTimeout.String()}
		if err := state.WriteRemoved(a.paths, name, r); err != nil {
			a.log.Warn("reload.keep_record_failed", "service", name, "err", err)
		}
		out[name] = fmt.Sprintf("left running, no longer supervised: pid %d ('svc-ctl stop %s' stops it)", inst.PID, name)
	}
	return out
}

// putInForce makes eff the config in force everywhere it is read: the
// agent, the watchdog, the events and pings, the log's level and redactor,
// and agent.status.
func (a *Agent) putInForce(old, eff *config.Config, plan reloadplan.Plan) {
	a.cur.Store(eff)
	a.sup.SetConfig(eff)
	if a.deriver != nil {
		a.deriver.SetConfig(eff)
	}
	if a.pinger != nil {
		a.pinger.SetConfig(old, eff)
	}
	a.logLevel.Set(agentlog.Level(eff.Agent.LogLevel))
	a.logRed.Store(a.sup.Redactor())
	a.loaded.Store(&state.LoadedConfig{Path: eff.Path, Digest: eff.Digest, ModTime: eff.ModTime, LoadedAt: time.Now().UTC(),
		NeedsRestart: plan.NeedsRestart})
}
