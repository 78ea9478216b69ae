package agent

import (
	"context"
	"encoding/json"

	"svcctl/agent/requests"
	"svcctl/control"
	"svcctl/runtrace"
)

// handlers is every kind this agent answers (agent/requests); agent.status
// lists them (requests.Serves), and the command line hands over only those.
func (a *Agent) handlers() map[control.Kind]requests.Handler {
	return map[control.Kind]requests.Handler{
		control.KindReload: a.handleReload,
		control.KindRun: func(_ context.Context, req control.Request, reply func(control.Response)) {
			a.jobs.HandleRun(a.config(), a.loaded.Load().LoadedAt, req, reply)
		},
		control.KindInterrupt: func(_ context.Context, req control.Request, reply func(control.Response)) {
			a.jobs.HandleInterrupt(req, reply)
		},
		control.KindStart:   a.handleAct,
		control.KindRestart: a.handleAct,
		control.KindStop:    a.handleAct,
		control.KindPause:   a.handleAct,
		control.KindResume:  a.handleAct,
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
