// Package requests is the agent's side of package control: the requests the
// command line hands over (reload, run a job now, interrupt that run, a
// person's start, stop, restart, pause, resume) are taken at each wake and
// handed to one handler per kind. A handler answers through reply, at once or
// later from the work it started (a run answers when it began and again when
// it ended); it never blocks the next request for long.
//
// What this package must never do: stop the agent, whatever a request says
// or carries; leave a request unanswered when the agent stops (RefuseAll); or
// start a goroutine outside the agent's L2 net (Server.Go).
package requests

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"svcctl/config"
	"svcctl/control"
	"svcctl/state"
)

// Handler answers one request.
type Handler func(ctx context.Context, req control.Request, reply func(control.Response))

// Server takes the requests waiting in the agent's state dir at each wake.
type Server struct {
	Paths    state.Paths
	Log      *slog.Logger
	Handlers map[control.Kind]Handler
	// Reload is a SIGHUP: a reload, with `svc-ctl reload`'s request or, with
	// none among those waiting, BareReload (the defaults: `kill -HUP`).
	Reload     <-chan struct{}
	BareReload func(ctx context.Context)
	// Requests is the wake of the other requests (SIGUSR1; on Windows the
	// agent's wake event, which the server listens to itself).
	Requests <-chan struct{}
	// Streaming says whether request id's run is in flight: the sweep keeps
	// its stream file however long it goes quiet.
	Streaming func(id string) bool
	// Go runs fn in a goroutine under the agent's L2 net.
	Go func(name string, fn func())
}

// Serves is the sorted list of the kinds hs answers, for agent.status.
func Serves(hs map[control.Kind]Handler) []string {
	var out []string
	for k := range hs {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}

// Run answers the wakes, one at a time, for as long as the loops
// run: a SIGHUP (Reload: a reload, with or without a request), a
// SIGUSR1 (Requests) or the Windows wake event. A request never
// stops the agent, whatever comes of it.
func (s *Server) Run(ctx context.Context) {
	osWake := s.osWakes(ctx)
	sweep := time.NewTicker(time.Minute)
	defer sweep.Stop()
	for {
		bare := false
		select {
		case <-ctx.Done():
			return
		case <-sweep.C:
			control.Sweep(s.Paths, time.Now(), s.Streaming)
			continue
		case <-s.Reload:
			bare = true
		case <-s.Requests:
		case <-osWake:
		}
		s.serve(ctx, bare)
	}
}

// serve takes every request waiting and hands each to its handler.
// bareReload: the wake was a SIGHUP; with no reload request among them it
// is a reload with the defaults (`kill -HUP`).
func (s *Server) serve(ctx context.Context, bareReload bool) {
	reqs, errs := control.Take(s.Paths, time.Now(), !config.UserMode())
	for _, err := range errs {
		s.Log.Warn("request.dropped", "err", err)
	}
	hs := s.Handlers
	reloaded := false
	for _, req := range reqs {
		reply := s.replier(req)
		h := hs[req.Kind]
		if h == nil {
			reply(control.Response{Final: true, Code: control.CodeUsage,
				Refused: fmt.Sprintf("this agent does not take %q requests", req.Kind)})
			continue
		}
		s.Log.Info("request.taken", "kind", req.Kind, "request_id", req.ID, "by", req.By)
		if req.Kind == control.KindReload {
			reloaded = true
		}
		h(ctx, req, reply)
	}
	if bareReload && !reloaded {
		s.BareReload(ctx)
	}
}

// replier writes the answers to req; a write that fails is logged (the
// command waiting says it got no answer).
func (s *Server) replier(req control.Request) func(control.Response) {
	return func(r control.Response) {
		if err := control.Reply(s.Paths, req, r); err != nil {
			s.Log.Warn("request.reply_failed", "kind", req.Kind, "request_id", req.ID, "err", err)
		}
	}
}

// RefuseAll answers what waits while the agent stops: nobody will run
// it, and the command must not wait out its deadline to learn that.
func (s *Server) RefuseAll() {
	reqs, _ := control.Take(s.Paths, time.Now(), !config.UserMode())
	for _, req := range reqs {
		s.replier(req)(control.Response{Final: true, Code: control.CodeStopping,
			Refused: "the agent is stopping (draining); nothing was done"})
	}
}
