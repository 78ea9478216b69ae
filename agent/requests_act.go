package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"svcctl/agent/requests"
	"svcctl/control"
	"svcctl/proc"
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
	names, err := requests.Names(cfg, req.Kind, args)
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
	a.net.GoOnce("request:"+string(req.Kind), func() {
		out, err := requests.Act(ctx, sup, req.Kind, names, args)
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
