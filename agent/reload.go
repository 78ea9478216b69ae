package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

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

// instanceKeys are the keys of a service whose change needs a new
// instance: what the running one was started with.
var instanceKeys = map[string]bool{"command": true, "env": true, "env_file": true, "dir": true, "search_path": true, "user": true,
	"group": true, "log": true, "limits": true}

// reloadPlan is what a new config changes.
type reloadPlan struct {
	AddedServices   []string            `json:"added_services,omitempty"`
	RemovedServices []string            `json:"removed_services,omitempty"`
	ChangedServices map[string][]string `json:"changed_services,omitempty"` // name -> keys
	Replaced        []string            `json:"replaced,omitempty"`         // changed services whose instance is replaced
	AddedJobs       []string            `json:"added_jobs,omitempty"`
	RemovedJobs     []string            `json:"removed_jobs,omitempty"`
	ChangedJobs     map[string][]string `json:"changed_jobs,omitempty"`
	Unchanged       int                 `json:"unchanged"`
	NeedsRestart    []string            `json:"needs_restart,omitempty"`
}

func (p *reloadPlan) empty() bool {
	return len(p.AddedServices)+len(p.RemovedServices)+len(p.ChangedServices)+len(p.AddedJobs)+
		len(p.RemovedJobs)+len(p.ChangedJobs) == 0
}

// reload re-reads the config once, as req asks (the zero request: a bare
// SIGHUP, the defaults), and returns its row as recorded.
func (a *Agent) reload(ctx context.Context, req control.Request, args control.ReloadArgs) control.ReloadDone {
	old := a.config()
	next, err := a.loadForReload(old)
	if err == nil && !args.AllowMissingInclude {
		err = missingIncludes(old, next)
	}
	if err != nil {
		return a.refuseReload(old, req, err)
	}
	plan, eff := planReload(old, next)
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
		a.jobs.stop(name, true)
	}
	for name := range plan.ChangedJobs {
		a.jobs.stop(name, false)
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
		if replaced(keys) {
			first = &watchdog.Request{Trigger: runtrace.TriggerManual, Replace: true, Reload: true, Cause: watchdog.CauseManual,
				Why: "config reloaded: " + strings.Join(keys, ", ") + " changed"}
		}
		a.startService(eff.Service(name), first)
	}
	for _, name := range plan.AddedJobs {
		a.jobs.start(eff.Job(name))
	}
	for name := range plan.ChangedJobs {
		a.jobs.start(eff.Job(name))
	}
	a.writeReport()
	a.log.Info("agent.reloaded", "config", old.Path, "request_id", req.ID, "added", len(plan.AddedServices)+len(plan.AddedJobs),
		"removed", len(plan.RemovedServices)+len(plan.RemovedJobs), "changed", len(plan.ChangedServices)+len(plan.ChangedJobs),
		"replaced", plan.Replaced, "unchanged", plan.Unchanged, "needs_restart", plan.NeedsRestart)
	detail["message"] = plan.summary()
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
	if fi, err := os.Stat(old.Path); err == nil && fi.Size() == 0 && (len(old.Services) > 0 || len(old.Jobs) > 0) {
		// An editor that truncates then writes, caught in between: read
		// as a config, it would remove everything.
		return nil, fmt.Errorf("%s is empty (a save in progress?): a reload never reads an empty file as \"every service and job removed\"; "+
			"to remove them all, leave a comment line in the file", old.Path)
	}
	next, err := load(old.Path)
	if err != nil {
		return nil, err
	}
	if next.Agent.StateDir != old.Agent.StateDir {
		return nil, fmt.Errorf("%s: agent.state_dir changed from %s to %s: an agent cannot move its state dir while it runs; "+
			"put it back, or restart the agent to use the new one", old.Path, old.Agent.StateDir, next.Agent.StateDir)
	}
	return next, nil
}

// missingIncludes refuses a file whose include matched files when the
// config in force was loaded and matches none now: a half-finished deploy
// (conf.d emptied before its new files arrive) must not read as every one
// of its services removed. `svc-ctl reload --allow-missing-include` takes it.
func missingIncludes(old, next *config.Config) error {
	gone := next.MissingIncludes(old)
	if len(gone) == 0 {
		return nil
	}
	var parts []string
	for _, m := range gone {
		parts = append(parts, fmt.Sprintf("include %q matched %d file(s) when the config in force was loaded and matches none now", m.Pattern, len(m.Files)))
	}
	return fmt.Errorf("%s: %s: finish the deploy, or run `svc-ctl reload --allow-missing-include` if their services and jobs are meant to go",
		next.Path, strings.Join(parts, "; "))
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
func (a *Agent) putInForce(old, eff *config.Config, plan reloadPlan) {
	a.cur.Store(eff)
	a.sup.SetConfig(eff)
	if a.deriver != nil {
		a.deriver.SetConfig(eff)
	}
	if a.pinger != nil {
		a.pinger.SetConfig(old, eff)
	}
	a.logLevel.Set(LogLevel(eff.Agent.LogLevel))
	a.logRed.Store(a.sup.Redactor())
	a.loaded.Store(&state.LoadedConfig{Path: eff.Path, Digest: eff.Digest, ModTime: eff.ModTime, LoadedAt: time.Now().UTC(),
		NeedsRestart: plan.NeedsRestart})
}

// planReload compares the config in force with the file's new one, and
// returns what changes and the config to put in force: the new services
// and jobs, the new [agent] values that apply while running, and the
// [agent] values and [[notify]] channels the agent started with where
// they need a restart.
func planReload(old, next *config.Config) (reloadPlan, *config.Config) {
	eff := *next
	p := reloadPlan{ChangedServices: map[string][]string{}, ChangedJobs: map[string][]string{}}
	for i := range next.Services {
		s := &next.Services[i]
		o := old.Service(s.Name)
		switch keys := serviceChanges(o, s); {
		case o == nil:
			p.AddedServices = append(p.AddedServices, s.Name)
		case len(keys) > 0:
			p.ChangedServices[s.Name] = keys
			if replaced(keys) {
				p.Replaced = append(p.Replaced, s.Name)
			}
		default:
			p.Unchanged++
		}
	}
	for i := range old.Services {
		if next.Service(old.Services[i].Name) == nil {
			p.RemovedServices = append(p.RemovedServices, old.Services[i].Name)
		}
	}
	for i := range next.Jobs {
		j := &next.Jobs[i]
		o := old.Job(j.Name)
		switch keys := jobChanges(o, j); {
		case o == nil:
			p.AddedJobs = append(p.AddedJobs, j.Name)
		case len(keys) > 0:
			p.ChangedJobs[j.Name] = keys
		default:
			p.Unchanged++
		}
	}
	for i := range old.Jobs {
		if next.Job(old.Jobs[i].Name) == nil {
			p.RemovedJobs = append(p.RemovedJobs, old.Jobs[i].Name)
		}
	}
	// What only a restart applies keeps its old value, and is listed.
	if next.Agent.Heartbeat != old.Agent.Heartbeat {
		p.NeedsRestart = append(p.NeedsRestart, "agent.heartbeat")
		eff.Agent.Heartbeat = old.Agent.Heartbeat
	}
	if next.Agent.MetricsListen != old.Agent.MetricsListen {
		p.NeedsRestart = append(p.NeedsRestart, "agent.metrics_listen")
		eff.Agent.MetricsListen = old.Agent.MetricsListen
	}
	// The agent's own ping and its log's destinations are set up at start.
	if next.Agent.Ping != old.Agent.Ping || next.Agent.PingEvery != old.Agent.PingEvery {
		p.NeedsRestart = append(p.NeedsRestart, "agent.ping")
		eff.Agent.Ping, eff.Agent.PingFile, eff.Agent.PingEvery = old.Agent.Ping, old.Agent.PingFile, old.Agent.PingEvery
	}
	if !reflect.DeepEqual(next.Agent.LogDestinations, old.Agent.LogDestinations) {
		p.NeedsRestart = append(p.NeedsRestart, "agent.log_destinations")
		eff.Agent.LogDestinations = old.Agent.LogDestinations
	}
	if !reflect.DeepEqual(next.Notify, old.Notify) {
		p.NeedsRestart = append(p.NeedsRestart, "[[notify]]")
		eff.Notify = old.Notify
	}
	sort.Strings(p.Replaced)
	return p, &eff
}

func replaced(keys []string) bool {
	for _, k := range keys {
		if instanceKeys[k] {
			return true
		}
	}
	return false
}

// serviceChanges lists the keys (as the file names them) in which two
// definitions of a service differ; nil when o is nil or they are equal.
func serviceChanges(o, n *config.Service) []string {
	if o == nil {
		return nil
	}
	return changedKeys([]keyEq{
		{"command", eq(o.Command, n.Command)}, {"env", eq(o.Env, n.Env)}, {"env_file", o.EnvFile == n.EnvFile},
		{"dir", o.Dir == n.Dir}, {"search_path", eq(o.SearchPath, n.SearchPath)},
		{"user", o.RunAs.User == n.RunAs.User}, {"group", o.RunAs.Group == n.RunAs.Group}, {"log", o.Log == n.Log}, {"log_max", o.LogMax == n.LogMax}, {"interval", o.Interval == n.Interval},
		{"start_timeout", o.StartTimeout == n.StartTimeout}, {"stop_timeout", o.StopTimeout == n.StopTimeout},
		{"health", eq(o.Health, n.Health)}, {"depends", eq(o.Depends, n.Depends)}, {"restart", eq(o.Restart, n.Restart)},
		{"limits", o.Limits == n.Limits}, {"ping", o.Ping == n.Ping},
		// How the instance is stopped applies to its next stop, and
		// pid_file to the next look at it: none needs a new instance.
		{"stop_signal", o.StopSignal == n.StopSignal}, {"kill_mode", o.KillMode == n.KillMode},
		{"stop_command", eq(o.StopCommand, n.StopCommand)}, {"pid_file", o.PidFile == n.PidFile},
	})
}

// jobChanges is serviceChanges for jobs. The zone is compared by name (a
// *time.Location caches what it looked up).
func jobChanges(o, n *config.Job) []string {
	if o == nil {
		return nil
	}
	return changedKeys([]keyEq{
		{"schedule", o.Schedule == n.Schedule}, {"timezone", o.Timezone == n.Timezone}, {"command", eq(o.Command, n.Command)},
		{"dir", o.Dir == n.Dir}, {"search_path", eq(o.SearchPath, n.SearchPath)}, {"env", eq(o.Env, n.Env)},
		{"env_file", o.EnvFile == n.EnvFile}, {"user", o.RunAs.User == n.RunAs.User}, {"group", o.RunAs.Group == n.RunAs.Group}, {"log_max", o.LogMax == n.LogMax},
		{"timeout", o.Timeout == n.Timeout}, {"catch_up", o.CatchUp == n.CatchUp}, {"grace", o.Grace == n.Grace},
		{"external", o.External == n.External}, {"depends", eq(o.Depends, n.Depends)}, {"ping", o.Ping == n.Ping},
	})
}

type keyEq struct {
	key   string
	equal bool
}

func changedKeys(ks []keyEq) []string {
	var out []string
	for _, k := range ks {
		if !k.equal {
			out = append(out, k.key)
		}
	}
	return out
}

func eq(a, b any) bool { return reflect.DeepEqual(a, b) }

// summary is the reloaded row's message: what changed, in a line.
func (p reloadPlan) summary() string {
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			sort.Strings(names)
			parts = append(parts, what+" "+strings.Join(names, ", "))
		}
	}
	add("services added:", p.AddedServices)
	add("services removed:", p.RemovedServices)
	add("services changed:", keysOf(p.ChangedServices))
	add("replaced:", p.Replaced)
	add("jobs added:", p.AddedJobs)
	add("jobs removed:", p.RemovedJobs)
	add("jobs changed:", keysOf(p.ChangedJobs))
	if p.empty() {
		parts = append(parts, "no service or job changed")
	}
	parts = append(parts, fmt.Sprintf("%d unchanged", p.Unchanged))
	if len(p.NeedsRestart) > 0 {
		parts = append(parts, "needs an agent restart: "+strings.Join(p.NeedsRestart, ", "))
	}
	return "reloaded: " + strings.Join(parts, "; ")
}

func keysOf(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
