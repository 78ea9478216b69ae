package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// By is what the record says of an action taken on the page: the `by` of
// its run's detail and of its pause sentinel.
const By = "ui"

// ActionRequest is the JSON body of POST /api/actions/{start|restart|pause|resume}.
type ActionRequest struct {
	Name   string `json:"name"`
	For    string `json:"for,omitempty"`    // pause: how long ("30m", "2h", "1d"); empty: until resumed
	Reason string `json:"reason,omitempty"` // pause: why, for the record
}

// ActionResult is the answer: whether it worked, in words, and the verb's
// own result (a cycle's verdict, the pause sentinel, the resume report).
type ActionResult struct {
	Action  string `json:"action"`
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Result  any    `json:"result,omitempty"`
}

// action runs one verb on a supervisor built for it.
type action func(ctx context.Context, sup *watchdog.Supervisor, req ActionRequest) (ActionResult, error)

// actionTable is every action the page offers, each the code its CLI verb
// runs (cmd/svc-ctl/cmd_start.go, cmd_restart.go, cmd_pause.go,
// cmd_resume.go).
var actionTable = map[string]action{
	"start":   actStart,
	"restart": actRestart,
	"pause":   actPause,
	"resume":  actResume,
}

// actionOrder is how the page lists them.
var actionOrder = []string{"start", "restart", "pause", "resume"}

func (s *Server) actions() []string {
	out := []string{}
	if s.opts.Act == nil {
		return out
	}
	for _, a := range actionOrder {
		if actionTable[a] != nil {
			out = append(out, a)
		}
	}
	return out
}

func (s *Server) handleAction(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("action")
	act := actionTable[name]
	if act == nil || s.opts.Act == nil {
		fail(w, http.StatusNotFound, fmt.Errorf("no action %q here (actions: %v)", name, s.actions()))
		return
	}
	var req ActionRequest
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || req.Name == "" {
		fail(w, http.StatusBadRequest, fmt.Errorf("want a JSON body like {\"name\": \"web\"}: %w", errors.Join(err, errNoName(req.Name))))
		return
	}
	// The action outlives the request: a person closing the tab must not
	// cut a start short between its stop and its spawn.
	ctx := context.WithoutCancel(r.Context())
	sup, done, err := s.opts.Act(ctx)
	if err != nil {
		s.opts.Log.Warn("ui.action_refused", "action", name, "name", req.Name, "err", err)
		if errs := configErrors(err); len(errs) > 0 {
			// The file does not load: nothing is wrong with the request or
			// with who asks; it conflicts with the file as it is now.
			writeJSON(w, http.StatusConflict, configConflict{
				Error:        "the config file does not load; fix it, and the page acts again: " + err.Error(),
				ConfigErrors: errs,
			})
			return
		}
		fail(w, http.StatusForbidden, err) // a config or state dir others can write, one this user may not read
		return
	}
	defer done()
	sup.By = By
	res, err := s.handOrAct(ctx, sup, name, act, req)
	switch {
	case errors.Is(err, watchdog.ErrUnknownName):
		fail(w, http.StatusNotFound, err)
		return
	case errors.Is(err, errBadRequest):
		fail(w, http.StatusBadRequest, err)
		return
	case err != nil:
		s.opts.Log.Warn("ui.action_failed", "action", name, "name", req.Name, "err", err)
		fail(w, http.StatusInternalServerError, err)
		return
	}
	res.Action, res.Name = name, req.Name
	s.opts.Log.Info("ui.action", "action", name, "name", req.Name, "ok", res.OK, "message", res.Message, "remote", r.RemoteAddr)
	writeJSON(w, http.StatusOK, res)
}

var errBadRequest = errors.New("bad request")

// handOrAct runs a start or restart through the running agent when one
// takes it (Options.ToAgent), else the action here.
func (s *Server) handOrAct(ctx context.Context, sup *watchdog.Supervisor, name string, act action, req ActionRequest) (ActionResult, error) {
	if (name == "start" || name == "restart") && s.opts.ToAgent != nil && sup.Config().Service(req.Name) != nil {
		r, handed, err := s.opts.ToAgent(ctx, sup, name, req.Name)
		if handed {
			if err != nil {
				return ActionResult{}, err
			}
			return cycleResult(r), nil
		}
	}
	return act(ctx, sup, req)
}

// configConflict is the answer to an action while the config file does not
// load (409): the error, and each problem of the file (file:line: key: what).
type configConflict struct {
	Error        string   `json:"error"`
	ConfigErrors []string `json:"config_errors"`
}

// errNoName is the complaint about a body without a name, or nil.
func errNoName(name string) error {
	if name == "" {
		return errors.New("no name")
	}
	return nil
}

func actStart(ctx context.Context, sup *watchdog.Supervisor, req ActionRequest) (ActionResult, error) {
	if sup.Config().Service(req.Name) == nil {
		return ActionResult{}, fmt.Errorf("%w: %q is not a service in %s", watchdog.ErrUnknownName, req.Name, sup.Config().Path)
	}
	r, err := sup.Ensure(ctx, req.Name, watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true})
	if err != nil {
		return ActionResult{}, err
	}
	return cycleResult(r), nil
}

func actRestart(ctx context.Context, sup *watchdog.Supervisor, req ActionRequest) (ActionResult, error) {
	if sup.Config().Service(req.Name) == nil {
		return ActionResult{}, fmt.Errorf("%w: %q is not a service in %s", watchdog.ErrUnknownName, req.Name, sup.Config().Path)
	}
	r, err := sup.Restart(ctx, req.Name)
	if err != nil {
		return ActionResult{}, err
	}
	return cycleResult(r), nil
}

func cycleResult(r watchdog.Result) ActionResult {
	msg := r.Message
	if r.RecordError != "" {
		msg += " (not recorded in run_trace: " + r.RecordError + ")"
	}
	return ActionResult{OK: r.Outcome != runtrace.OutcomeFailed, Message: msg, Result: r}
}

func actPause(_ context.Context, sup *watchdog.Supervisor, req ActionRequest) (ActionResult, error) {
	var d time.Duration
	if req.For != "" {
		var err error
		if d, err = config.ParseDuration(req.For); err != nil || d <= 0 {
			return ActionResult{}, fmt.Errorf("%w: for %q: want a positive duration like 30m, 2h or 1d", errBadRequest, req.For)
		}
	}
	reason := req.Reason
	if reason == "" {
		reason = "paused by hand"
	}
	p, err := sup.PauseTarget(req.Name, d, reason)
	if err != nil {
		return ActionResult{}, err
	}
	msg := "paused until resumed"
	if p.Until != nil {
		msg = "paused until " + p.Until.Local().Format("2006-01-02 15:04 MST")
	}
	return ActionResult{OK: true, Message: msg + " (reason: " + p.Reason + ")", Result: p}, nil
}

func actResume(ctx context.Context, sup *watchdog.Supervisor, req ActionRequest) (ActionResult, error) {
	rep, err := sup.Resume(ctx, req.Name)
	if err != nil {
		return ActionResult{}, err
	}
	msg := "was not paused; nothing to do"
	switch {
	case rep.WasPaused && rep.ClearedGiveUp:
		msg = "resumed; given-up cleared"
	case rep.WasPaused:
		msg = "resumed"
	case rep.ClearedGiveUp:
		msg = "was not paused; given-up cleared"
	}
	return ActionResult{OK: true, Message: msg, Result: rep}, nil
}
