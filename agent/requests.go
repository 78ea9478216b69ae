package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"svcctl/agent/requests"
	"svcctl/control"
	"svcctl/runtrace"
)

// handlers is every kind this agent answers (agent/requests); agent.status
// lists them (requests.Serves), and the command line hands over only those.
func (a *Agent) handlers() map[control.Kind]requests.Handler {
	return map[control.Kind]requests.Handler{
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

// requestServer takes the requests of this agent's state dir at each wake
// (agent/requests) and hands each to its handler.
func (a *Agent) requestServer() *requests.Server {
	return &requests.Server{Paths: a.paths, Log: a.log, Handlers: a.handlers(), Reload: a.o.Reload, Requests: a.o.Requests,
		BareReload: func(ctx context.Context) { a.reload(ctx, control.Request{}, control.ReloadArgs{}) },
		Streaming:  a.jobs.Streaming,
		Go:         func(name string, fn func()) { a.net.GoOnce(name, fn, nil) }}
}
