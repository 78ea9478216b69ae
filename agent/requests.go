package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"svcctl/config"
	"svcctl/control"
	"svcctl/runtrace"
)

// The agent's side of package control: the requests the command line hands
// over (reload, run a job now, interrupt that run) are taken at each wake
// and handed to one handler per kind. A handler answers through reply, at
// once or later from the work it started (a run answers when it began and
// again when it ended); it never blocks the next request for long.

// requestHandler answers one request.
type requestHandler func(ctx context.Context, req control.Request, reply func(control.Response))

// handlers is every kind this agent answers; agent.status lists them
// (Serves), and the command line hands over only those.
func (a *Agent) handlers() map[control.Kind]requestHandler {
	return map[control.Kind]requestHandler{
		control.KindReload:    a.handleReload,
		control.KindRun:       a.handleRun,
		control.KindInterrupt: a.handleInterrupt,
		control.KindStart:     a.handleAct,
		control.KindRestart:   a.handleAct,
		control.KindStop:      a.handleAct,
		control.KindPause:     a.handleAct,
		control.KindResume:    a.handleAct,
	}
}

// serves is the sorted list of kinds for agent.status.
func (a *Agent) serves() []string {
	var out []string
	for k := range a.handlers() {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}

// requestLoop answers the wakes, one at a time, for as long as the loops
// run: a SIGHUP (Options.Reload: a reload, with or without a request), a
// SIGUSR1 (Options.Requests) or the Windows wake event. A request never
// stops the agent, whatever comes of it.
func (a *Agent) requestLoop(ctx context.Context) {
	osWake := a.osWakes(ctx)
	sweep := time.NewTicker(time.Minute)
	defer sweep.Stop()
	for {
		bare := false
		select {
		case <-ctx.Done():
			return
		case <-sweep.C:
			control.Sweep(a.paths, time.Now(), a.jobs.Streaming)
			continue
		case <-a.o.Reload:
			bare = true
		case <-a.o.Requests:
		case <-osWake:
		}
		a.serveRequests(ctx, bare)
	}
}

// serveRequests takes every request waiting and hands each to its handler.
// bareReload: the wake was a SIGHUP; with no reload request among them it
// is a reload with the defaults (`kill -HUP`).
func (a *Agent) serveRequests(ctx context.Context, bareReload bool) {
	reqs, errs := control.Take(a.paths, time.Now(), !config.UserMode())
	for _, err := range errs {
		a.log.Warn("request.dropped", "err", err)
	}
	hs := a.handlers()
	reloaded := false
	for _, req := range reqs {
		reply := a.replier(req)
		h := hs[req.Kind]
		if h == nil {
			reply(control.Response{Final: true, Code: control.CodeUsage,
				Refused: fmt.Sprintf("this agent does not take %q requests", req.Kind)})
			continue
		}
		a.log.Info("request.taken", "kind", req.Kind, "request_id", req.ID, "by", req.By)
		if req.Kind == control.KindReload {
			reloaded = true
		}
		h(ctx, req, reply)
	}
	if bareReload && !reloaded {
		a.reload(ctx, control.Request{}, control.ReloadArgs{})
	}
}

// replier writes the answers to req; a write that fails is logged (the
// command waiting says it got no answer).
func (a *Agent) replier(req control.Request) func(control.Response) {
	return func(r control.Response) {
		if err := control.Reply(a.paths, req, r); err != nil {
			a.log.Warn("request.reply_failed", "kind", req.Kind, "request_id", req.ID, "err", err)
		}
	}
}

// refuseRequests answers what waits while the agent stops: nobody will run
// it, and the command must not wait out its deadline to learn that.
func (a *Agent) refuseRequests() {
	reqs, _ := control.Take(a.paths, time.Now(), !config.UserMode())
	for _, req := range reqs {
		a.replier(req)(control.Response{Final: true, Code: control.CodeStopping,
			Refused: "the agent is stopping (draining); nothing was done"})
	}
}

func (a *Agent) handleReload(ctx context.Context, req control.Request, reply func(control.Response)) {
	var args control.ReloadArgs
	if len(req.Args) > 0 {
		if err := json.Unmarshal(req.Args, &args); err != nil {
			reply(control.Response{Final: true, Code: control.CodeUsage, Refused: "damaged reload options: " + err.Error()})
			return
		}
	}
	done := a.reload(ctx, req, args)
	reply(control.Response{Final: true, Result: control.Result(done)})
}

// handleRun runs a job of the config in force now, as a person asked
// (`svc-ctl run JOB`): trigger manual, no slot.
func (a *Agent) handleRun(_ context.Context, req control.Request, reply func(control.Response)) {
	var args control.RunArgs
	if err := json.Unmarshal(req.Args, &args); err != nil || args.Job == "" {
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: "a run request names no job"})
		return
	}
	j := a.config().Job(args.Job)
	switch {
	case j == nil:
		reply(control.Response{Final: true, Code: control.CodeUnknown, Refused: fmt.Sprintf(
			"the running agent's config has no job named %s (it runs the file as loaded at %s: 'svc-ctl reload' applies the file on disk)",
			args.Job, a.loaded.Load().LoadedAt.Format(time.RFC3339))})
	case j.External:
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: externalRefusal(j.Name)})
	case a.draining.Load():
		reply(control.Response{Final: true, Code: control.CodeStopping, Refused: "the agent is stopping (draining): run it after it is back"})
	default:
		a.jobs.RunManual(j, req, reply)
	}
}

// externalRefusal is the one answer to `svc-ctl run` of an external job.
func externalRefusal(name string) string {
	return fmt.Sprintf("%s is external = true: another scheduler runs it, through 'svc-ctl exec %s -- CMD...'; svc-ctl has no command of its own to run", name, name)
}

// ExternalRefusal is that answer for the command line, when it runs the
// job itself (no agent).
func ExternalRefusal(name string) string { return externalRefusal(name) }

func (a *Agent) handleInterrupt(_ context.Context, req control.Request, reply func(control.Response)) {
	var args control.InterruptArgs
	if err := json.Unmarshal(req.Args, &args); err != nil || args.Request == "" {
		reply(control.Response{Final: true, Code: control.CodeUsage, Refused: "an interrupt request names no run"})
		return
	}
	why := args.Why
	if why == "" {
		why = "interrupted by " + req.By
	}
	if !a.jobs.Interrupt(args.Request, why) {
		reply(control.Response{Final: true, Code: control.CodeUnknown, Refused: "no run of that request is in flight (it has ended)"})
		return
	}
	reply(control.Response{Final: true})
}

// reloadDone is a reload's answer: its row, as recorded.
func reloadDone(outcome runtrace.Outcome, reason runtrace.Reason, detail map[string]any) control.ReloadDone {
	b, _ := json.Marshal(detail)
	return control.ReloadDone{Outcome: string(outcome), Reason: string(reason), Detail: b}
}
