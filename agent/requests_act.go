package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"svcctl/config"
	"svcctl/control"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// A person's start, stop, restart, pause or resume handed to the agent
// (cmd/svc-ctl handover.go: the config file does not load, and the agent
// acts with the config it runs; and every start and restart while an agent
// runs, so that the agent spawns the instance: it is then the subreaper of
// the instance's daemons, or puts it in a cgroup of its own). The work is the watchdog's, exactly as
// the verb does it from a shell, through a supervisor of the config in
// force that names the person who asked (their pause's `by`) and whose
// spawns the agent watches as its own.

// actSupervisor is a supervisor for one person's request.
func (a *Agent) actSupervisor(by string) *watchdog.Supervisor {
	sup := watchdog.NewSupervisor(a.config(), a.rec, a.log)
	sup.OnSpawn = a.onSpawn
	sup.OnReplace = func(name string, id proc.Identity) { a.replaced.Store(idKey(id), true) }
	sup.Cgroup, sup.Scope = a.sup.Cgroup, a.sup.Scope
	sup.By = by
	return sup
}

func (a *Agent) handleAct(_ context.Context, req control.Request, reply func(control.Response)) {
	var args control.ActArgs
	if err := json.Unmarshal(req.Args, &args); err != nil {
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: "damaged request: " + err.Error()})
		return
	}
	cfg := a.config()
	names, err := actNames(cfg, req.Kind, args)
	if err != nil {
		reply(control.Response{Final: true, Code: control.CodeUnknown, Refused: err.Error() + " (in the config the agent runs)"})
		return
	}
	if a.draining.Load() {
		reply(control.Response{Final: true, Code: control.CodeStopping, Refused: "the agent is stopping (draining): nothing was done"})
		return
	}
	sup := a.actSupervisor(req.By)
	ctx := a.runCtx
	a.goOnce("request:"+string(req.Kind), func() {
		out, err := act(ctx, sup, req.Kind, names, args)
		if err != nil {
			reply(control.Response{Final: true, Refused: err.Error()})
			return
		}
		for _, n := range names {
			if cfg.Service(n) != nil {
				a.adopt(n) // a spawn of this supervisor's is watched already; a stop leaves nothing to watch
			}
		}
		reply(control.Response{Final: true, Result: control.Result(out)})
	}, func(p any, _ string) {
		reply(control.Response{Final: true, Refused: fmt.Sprintf("the agent failed while doing it (a panic: %v); see 'svc-ctl logs agent'", p)})
	})
}

// actNames is what the request acts on: every service (and job, for pause
// and resume) with All, else the names, each checked.
func actNames(cfg *config.Config, kind control.Kind, args control.ActArgs) ([]string, error) {
	jobsToo := kind == control.KindPause || kind == control.KindResume
	if args.All {
		names := watchdog.ServiceNames(cfg)
		if jobsToo {
			names = append(names, watchdog.JobNames(cfg)...)
		}
		return names, nil
	}
	for _, n := range args.Names {
		switch {
		case cfg.Service(n) != nil:
		case jobsToo && cfg.Job(n) != nil:
		case jobsToo:
			return nil, watchdog.UnknownTarget(cfg, n)
		default:
			return nil, watchdog.UnknownService(cfg, n)
		}
	}
	return args.Names, nil
}

// act does the verb for each name, as the command would.
func act(ctx context.Context, sup *watchdog.Supervisor, kind control.Kind, names []string, args control.ActArgs) (any, error) {
	switch kind {
	case control.KindStart, control.KindRestart:
		results := make([]watchdog.Result, len(names))
		var wg sync.WaitGroup
		for i, n := range names {
			wg.Go(func() {
				req := watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true, Restart: kind == control.KindRestart}
				results[i], _ = sup.Ensure(ctx, n, req) // each name was checked
			})
		}
		wg.Wait()
		return results, nil
	case control.KindStop:
		var reps []watchdog.StopReport
		for _, n := range names {
			rep, err := sup.Stop(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("stop %s: %w", n, err)
			}
			reps = append(reps, rep)
		}
		return reps, nil
	case control.KindPause:
		var out []control.PauseDone
		for _, n := range names {
			p, err := sup.PauseTarget(n, args.For, args.Why)
			if err != nil {
				return nil, err
			}
			out = append(out, control.PauseDone{Name: n, Pause: p})
		}
		return out, nil
	case control.KindResume:
		var out []watchdog.ResumeReport
		for _, n := range names {
			rep, err := sup.Resume(ctx, n)
			if err != nil {
				return nil, err
			}
			out = append(out, rep)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no such verb %q", kind)
}
