package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/state"
)

// The command line's side: post a request, wake the agent, wait for its
// answer (steps 1, 2 and 4 of the package comment).

// Post writes a request of kind with args for the agent of p and returns
// it. Wake the agent after (Send does both, and waits).
func Post(p state.Paths, kind Kind, args any) (Request, error) {
	r := Request{ID: newID(), Kind: kind, At: time.Now().UTC(), By: state.Who()}
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return r, err
		}
		r.Args = b
	}
	b, err := json.Marshal(r)
	if err != nil {
		return r, err
	}
	if err := fsutil.EnsurePrivateDir(p.Requests()); err != nil {
		return r, fmt.Errorf("requests dir: %w", err)
	}
	if err := fsutil.WriteFileAtomic(requestPath(p, r.ID), append(b, '\n'), fsutil.FilePerm); err != nil {
		return r, fmt.Errorf("write the request: %w", err)
	}
	return r, nil
}

// Withdraw removes a request the agent has not taken. It reports whether
// the request was still there: false means the agent took it.
func Withdraw(p state.Paths, id string) bool {
	return os.Remove(requestPath(p, id)) == nil
}

// Agent is the running agent as a request sees it.
type Agent struct {
	PID    int
	Serves []string
	// Reported: its agent.status is its own (an agent that just took the
	// lock has not written it yet).
	Reported bool
}

// Running returns the agent holding p's lock: ErrNoAgent when none does.
func Running(p state.Paths) (Agent, error) {
	held, err := state.AgentLockHeld(p)
	if err != nil {
		return Agent{}, err
	}
	if !held {
		return Agent{}, fmt.Errorf("%w on state dir %s", ErrNoAgent, p.State)
	}
	pid, err := state.ReadAgentPID(p)
	if err != nil {
		return Agent{}, fmt.Errorf("the agent's pid (%s): %w", p.AgentPID(), err)
	}
	a := Agent{PID: pid}
	if r, err := state.ReadAgentReport(p); err == nil && r.PID == pid {
		a.Serves, a.Reported = r.Serves, true
	}
	return a, nil
}

// reported waits, up to timeout, for an agent that just took the lock to
// write its agent.status: until then what it takes is unknown.
func reported(ctx context.Context, p state.Paths, timeout time.Duration) (Agent, error) {
	deadline := time.Now().Add(min(timeout, 10*time.Second))
	for {
		a, err := Running(p)
		if err != nil || a.Reported || time.Now().After(deadline) {
			return a, err
		}
		select {
		case <-ctx.Done():
			return a, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Takes reports whether the agent answers requests of kind.
func (a Agent) Takes(kind Kind) bool { return slices.Contains(a.Serves, string(kind)) }

// Send posts a request, wakes the running agent and waits up to timeout
// for its first answer. With no agent running it returns ErrNoAgent and
// posts nothing; an agent that does not take kind, ErrNotServed.
func Send(ctx context.Context, p state.Paths, kind Kind, args any, timeout time.Duration) (Request, Response, error) {
	a, err := reported(ctx, p, timeout)
	if err != nil {
		return Request{}, Response{}, err
	}
	if !a.Takes(kind) {
		return Request{}, Response{}, fmt.Errorf("%w (%s): the agent (pid %d) is older than this svc-ctl; restart it", ErrNotServed, kind, a.PID)
	}
	req, err := Post(p, kind, args)
	if err != nil {
		return req, Response{}, err
	}
	if err := Wake(p, a.PID, kind); err != nil {
		Withdraw(p, req.ID)
		return req, Response{}, err
	}
	resp, err := Await(ctx, p, req, 1, timeout)
	return req, resp, err
}

// Await waits for answer seq of req until timeout has passed or ctx ends.
// The answer file is removed once read.
// At the deadline, a request still untaken is withdrawn (ErrNotTaken);
// one taken gets ErrNoAnswer; an agent that let go of its lock meanwhile,
// ErrAgentGone.
func Await(ctx context.Context, p state.Paths, req Request, seq int, timeout time.Duration) (Response, error) {
	deadline := time.Now().Add(timeout)
	path := responsePath(p, req.ID, seq)
	lastAlive := time.Now()
	for {
		if r, err := readResponse(path); err == nil {
			os.Remove(path)
			return r, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Response{}, err
		}
		if time.Since(lastAlive) > 500*time.Millisecond {
			lastAlive = time.Now()
			if held, err := state.AgentLockHeld(p); err == nil && !held {
				// Its last answer may have landed just before it let go.
				if r, err := readResponse(path); err == nil {
					os.Remove(path)
					return r, nil
				}
				Withdraw(p, req.ID)
				return Response{}, ErrAgentGone
			}
		}
		if time.Now().After(deadline) {
			if Withdraw(p, req.ID) {
				return Response{}, fmt.Errorf("%w within %s (withdrawn): is it hung? see 'svc-ctl logs agent'", ErrNotTaken, timeout)
			}
			return Response{}, fmt.Errorf("%w: it took the request but gave no answer within %s; see 'svc-ctl logs agent'", ErrNoAnswer, timeout)
		}
		select {
		case <-ctx.Done():
			if Withdraw(p, req.ID) {
				return Response{}, fmt.Errorf("withdrawn before the agent took it: %w", context.Cause(ctx))
			}
			return Response{}, fmt.Errorf("stopped waiting for the agent's answer: %w", context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Poll reads answer seq of req if it has come (ok), without waiting; the
// answer file is removed once read.
func Poll(p state.Paths, req Request, seq int) (r Response, ok bool, err error) {
	path := responsePath(p, req.ID, seq)
	r, err = readResponse(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	os.Remove(path)
	return r, true, nil
}

func readResponse(path string) (Response, error) {
	b, err := readSmall(path)
	if err != nil {
		return Response{}, err
	}
	var r Response
	if err := json.Unmarshal(b, &r); err != nil {
		return Response{}, fmt.Errorf("%s is damaged: %w", path, err)
	}
	return r, nil
}
