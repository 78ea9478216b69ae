// Package control is how the command line hands a request to the running
// agent, and how the agent answers. One mechanism for every kind (reload,
// run a job now, interrupt that run; more can be added):
//
//  1. the command writes <state>/requests/<id>.req, a Request with a fresh
//     random id, atomically (a temporary file renamed into place), 0600 in
//     the 0700 requests directory, never through a link (Post);
//  2. it wakes the agent whose pid agent.pid names while it holds
//     agent.lock: SIGHUP for a reload, SIGUSR1 for every other kind on
//     unix, a named event on Windows (Wake). An agent that does not list
//     the kind in agent.status (Serves) is never woken for it: SIGUSR1
//     would end an agent that predates it;
//  3. the agent claims each request by renaming it (a request is taken
//     once, whoever else looks), reads it and answers with one or more
//     Responses, <id>.<seq>.resp (Take, Reply);
//  4. the command waits for the answer it needs with a deadline (Await),
//     and tells "never taken" (the request is withdrawn) from "taken, no
//     answer yet", and both from "the agent stopped".
//
// With no agent holding the lock, Send returns ErrNoAgent at once: the
// caller decides what happens then (`svc-ctl run` runs the job itself;
// `reload` has nothing to reload).
//
// What it must never do: carry what to run. A request names a service or
// job of the config the agent runs, and options; argv, env, paths and users
// come from the agent's own config. Nor may it trust what it reads: the
// agent takes only regular files (no link followed), at most maxRequest
// bytes, and a privileged agent only those owned by its own user that no
// one else can write. Requests older than RequestTTL were never signalled
// and are dropped.
package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/state"
)

// Kind names what a request asks for. The agent answers the kinds it lists
// in agent.status (state.AgentReport.Serves).
type Kind string

const (
	// KindReload: re-read the config file (ReloadArgs); one answer, the
	// agent's row for it.
	KindReload Kind = "reload"
	// KindRun: run a configured job now (RunArgs); two answers, Accepted
	// (or the refusal) and then the run's verdict (Finished).
	KindRun Kind = "run"
	// KindInterrupt: end a run that a KindRun request started
	// (InterruptArgs); one answer.
	KindInterrupt Kind = "interrupt"
)

// Request is one request file.
type Request struct {
	ID   string          `json:"id"`
	Kind Kind            `json:"kind"`
	At   time.Time       `json:"at"`
	By   string          `json:"by,omitempty"` // who asked: user@host (pid), for the record
	Args json.RawMessage `json:"args,omitempty"`
}

// Response is one answer to a request. Seq counts the answers of one
// request from 1; Final says no more will come.
type Response struct {
	ID    string    `json:"id"`
	Seq   int       `json:"seq"`
	Kind  Kind      `json:"kind"`
	At    time.Time `json:"at"`
	Final bool      `json:"final,omitempty"`
	// Refused says why the agent did not do what was asked, in words for
	// the person at the terminal ("" when it did). Code classifies it for
	// the exit status: "busy", "unknown", "usage", "stopping".
	Refused string          `json:"refused,omitempty"`
	Code    string          `json:"code,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// Decode reads the response's result into v.
func (r Response) Decode(v any) error {
	if len(r.Result) == 0 {
		return errors.New("the answer carries no result")
	}
	return json.Unmarshal(r.Result, v)
}

// Refusal codes.
const (
	CodeBusy     = "busy"     // what was asked is under way already (a run in flight)
	CodeUnknown  = "unknown"  // the agent's config has no such service or job
	CodeUsage    = "usage"    // not something this verb does (an external job)
	CodeStopping = "stopping" // the agent is draining
)

// Errors the command line tells apart.
var (
	// ErrNoAgent: no agent holds the state dir's lock.
	ErrNoAgent = errors.New("no agent is running")
	// ErrNotServed: the running agent does not list the kind: it is older
	// than this command.
	ErrNotServed = errors.New("the running agent does not take this request")
	// ErrNotTaken: the agent did not take the request within the deadline
	// (it is withdrawn).
	ErrNotTaken = errors.New("the agent did not take the request")
	// ErrNoAnswer: the agent took the request but did not answer within
	// the deadline.
	ErrNoAnswer = errors.New("the agent did not answer in time")
	// ErrAgentGone: the agent stopped before it answered.
	ErrAgentGone = errors.New("the agent stopped before it answered")
)

// RequestTTL is how long a request may wait to be taken: older, its wake
// never came, and the command that wrote it has given up.
const RequestTTL = time.Minute

// answerTTL is how long answers and stream files are kept when nobody
// collects them (the command that asked was killed).
const answerTTL = 10 * time.Minute

// maxRequest bounds a request file: names and options, never data.
const maxRequest = 64 << 10

const (
	reqExt    = ".req"
	takenExt  = ".taken"
	respExt   = ".resp"
	streamExt = ".out"
)

func requestPath(p state.Paths, id string) string { return filepath.Join(p.Requests(), id+reqExt) }
func takenPath(p state.Paths, id string) string   { return filepath.Join(p.Requests(), id+takenExt) }
func responsePath(p state.Paths, id string, seq int) string {
	return filepath.Join(p.Requests(), id+"."+strconv.Itoa(seq)+respExt)
}

// StreamPath is where the agent copies the output of what a request started
// (a job's run), for the command that asked to print as it comes.
func StreamPath(p state.Paths, id string) string { return filepath.Join(p.Requests(), id+streamExt) }

// newID is 16 hex digits of randomness: a request file's name and its key.
func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// validID: ids name files, so only what newID makes is taken.
func validID(id string) bool {
	if len(id) != 16 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

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

func readSmall(path string) ([]byte, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRequest+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRequest {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxRequest)
	}
	return b, nil
}

// Take claims and reads every request waiting for the agent of p, oldest
// first, and removes their files. privileged: take only files owned by this
// process's user that no one else can write. Requests that cannot be read,
// or that waited longer than RequestTTL, are dropped and reported in errs.
func Take(p state.Paths, now time.Time, privileged bool) (reqs []Request, errs []error) {
	entries, err := os.ReadDir(p.Requests())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		return nil, errs
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), reqExt)
		if !ok || !validID(id) {
			continue
		}
		// Claim it: a rename happens once, so a request is taken once, and
		// a command giving up (Withdraw) can tell that it was taken.
		if err := fsutil.Rename(requestPath(p, id), takenPath(p, id)); err != nil {
			continue // withdrawn meanwhile
		}
		r, err := readRequest(takenPath(p, id), id, privileged)
		os.Remove(takenPath(p, id))
		switch {
		case err != nil:
			errs = append(errs, err)
		case now.Sub(r.At) > RequestTTL:
			errs = append(errs, fmt.Errorf("request %s (%s, from %s) waited %s: its wake never came; dropped",
				id, r.Kind, r.At.Format(time.RFC3339), now.Sub(r.At).Round(time.Second)))
		default:
			reqs = append(reqs, r)
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].At.Before(reqs[j].At) })
	return reqs, errs
}

func readRequest(path, id string, privileged bool) (Request, error) {
	if privileged {
		if err := fsutil.CheckPrivate(path, os.Geteuid()); err != nil {
			return Request{}, fmt.Errorf("request %s refused: %w", id, err)
		}
	}
	b, err := readSmall(path)
	if err != nil {
		return Request{}, fmt.Errorf("request %s: %w", id, err)
	}
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		return Request{}, fmt.Errorf("request %s is damaged: %w", id, err)
	}
	if r.ID != id {
		return Request{}, fmt.Errorf("request %s names another id (%q): dropped", id, r.ID)
	}
	return r, nil
}

// Reply writes one answer to req; the agent calls it. Seq counts from 1.
func Reply(p state.Paths, req Request, r Response) error {
	r.ID, r.Kind = req.ID, req.Kind
	if r.Seq <= 0 {
		r.Seq = 1
	}
	if r.At.IsZero() {
		r.At = time.Now().UTC()
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(responsePath(p, req.ID, r.Seq), append(b, '\n'), fsutil.FilePerm); err != nil {
		return fmt.Errorf("answer request %s: %w", req.ID, err)
	}
	return nil
}

// Result marshals v for a Response.
func Result(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Sweep removes what nobody collected: answers and stream files older than
// answerTTL (keep says which ids are still in use: a run in flight keeps
// its stream however quiet it is), and requests older than RequestTTL.
func Sweep(p state.Paths, now time.Time, keep func(id string) bool) {
	entries, err := os.ReadDir(p.Requests())
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		id, _, _ := strings.Cut(name, ".")
		if keep != nil && keep(id) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		ttl := answerTTL
		if strings.HasSuffix(name, reqExt) {
			ttl = RequestTTL
		}
		if now.Sub(fi.ModTime()) > ttl {
			os.Remove(filepath.Join(p.Requests(), name))
		}
	}
}
