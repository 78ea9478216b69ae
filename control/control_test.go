package control

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"svcctl/state"
)

func paths(t *testing.T) state.Paths {
	t.Helper()
	p := state.Paths{State: filepath.Join(t.TempDir(), "state")}
	if err := os.MkdirAll(p.State, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// A request is written 0600, taken once (by rename), answered, and the
// answer collected and removed.
func TestPostTakeReplyAwait(t *testing.T) {
	p := paths(t)
	req, err := Post(p, KindRun, RunArgs{Job: "report"})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(p.Requests(), req.ID+".req"))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("request file mode %v, want 0600", fi.Mode().Perm())
	}
	reqs, errs := Take(p, time.Now(), false)
	if len(errs) != 0 || len(reqs) != 1 || reqs[0].ID != req.ID || reqs[0].Kind != KindRun || !strings.Contains(string(reqs[0].Args), `"job":"report"`) {
		t.Fatalf("take: %+v %v", reqs, errs)
	}
	if again, _ := Take(p, time.Now(), false); len(again) != 0 {
		t.Fatalf("a request was taken twice: %+v", again)
	}
	if err := Reply(p, reqs[0], Response{Result: Result(RunAccepted{RunID: 7})}); err != nil {
		t.Fatal(err)
	}
	resp, err := Await(context.Background(), p, req, 1, time.Second)
	var acc RunAccepted
	if err != nil || resp.Decode(&acc) != nil || acc.RunID != 7 || resp.ID != req.ID || resp.Kind != KindRun {
		t.Fatalf("await: %+v %v", resp, err)
	}
	if _, ok, _ := Poll(p, req, 1); ok {
		t.Fatal("an answer was read twice")
	}
}

// At the deadline a request nobody took is withdrawn (so a late agent
// never acts on it), and one taken is told apart: no answer yet.
func TestAwaitDeadline(t *testing.T) {
	p := paths(t)
	// An agent holds the lock but never takes the request.
	lock, err := state.LockAgent(p)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	req, _ := Post(p, KindReload, nil)
	_, err = Await(context.Background(), p, req, 1, 200*time.Millisecond)
	if !errors.Is(err, ErrNotTaken) {
		t.Fatalf("untaken: %v, want ErrNotTaken", err)
	}
	if reqs, _ := Take(p, time.Now(), false); len(reqs) != 0 {
		t.Fatalf("a withdrawn request was taken: %+v", reqs)
	}
	req, _ = Post(p, KindReload, nil)
	Take(p, time.Now(), false)
	if _, err = Await(context.Background(), p, req, 1, 200*time.Millisecond); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("taken, unanswered: %v, want ErrNoAnswer", err)
	}
}

// An agent that lets go of its lock while a command waits ends the wait.
func TestAwaitAgentGone(t *testing.T) {
	p := paths(t)
	lock, err := state.LockAgent(p)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := Post(p, KindReload, nil)
	time.AfterFunc(100*time.Millisecond, lock.Release)
	began := time.Now()
	if _, err = Await(context.Background(), p, req, 1, 30*time.Second); !errors.Is(err, ErrAgentGone) {
		t.Fatalf("%v, want ErrAgentGone", err)
	}
	if time.Since(began) > 10*time.Second {
		t.Fatal("the wait outlived the agent by far")
	}
}

// Send says at once that no agent runs, and never wakes an agent that
// does not list the kind (SIGUSR1 would end one that predates it).
func TestSendNoAgentNotServed(t *testing.T) {
	p := paths(t)
	if _, _, err := Send(context.Background(), p, KindRun, RunArgs{Job: "x"}, time.Second); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("no agent: %v", err)
	}
	if entries, _ := os.ReadDir(p.Requests()); len(entries) != 0 {
		t.Fatalf("a request was left with no agent to take it: %v", entries)
	}
	lock, err := state.LockAgent(p)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	sf, err := state.OpenStatusFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if err := sf.Write(state.AgentReport{PID: os.Getpid(), UpdatedAt: time.Now(), Serves: []string{"reload"}}); err != nil {
		t.Fatal(err)
	}
	_, _, err = Send(context.Background(), p, KindRun, RunArgs{Job: "x"}, time.Second)
	if !errors.Is(err, ErrNotServed) || !strings.Contains(err.Error(), "restart it") {
		t.Fatalf("an agent that does not take run: %v", err)
	}
}

// What the agent must not trust: a request that waited past its TTL, one
// naming another id, a damaged one, a file that is not a request.
func TestTakeDropsWhatItCannotTrust(t *testing.T) {
	p := paths(t)
	old, _ := Post(p, KindReload, nil)
	if reqs, errs := Take(p, time.Now().Add(2*RequestTTL), false); len(reqs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "wake never came") {
		t.Fatalf("stale %s: %+v %v", old.ID, reqs, errs)
	}
	os.WriteFile(filepath.Join(p.Requests(), "0123456789abcdef.req"), []byte(`{"id":"fedcba9876543210","kind":"reload"}`), 0o600)
	os.WriteFile(filepath.Join(p.Requests(), "1123456789abcdef.req"), []byte(`{not json`), 0o600)
	os.WriteFile(filepath.Join(p.Requests(), "../x.req"), []byte(`{}`), 0o600)
	os.WriteFile(filepath.Join(p.Requests(), "notanid.req"), []byte(`{}`), 0o600)
	reqs, errs := Take(p, time.Now(), false)
	if len(reqs) != 0 || len(errs) != 2 {
		t.Fatalf("%+v %v", reqs, errs)
	}
}

// Sweep removes answers nobody collected and keeps a run's in flight.
func TestSweep(t *testing.T) {
	p := paths(t)
	a, _ := Post(p, KindRun, nil)
	b, _ := Post(p, KindRun, nil)
	Take(p, time.Now(), false)
	Reply(p, a, Response{})
	Reply(p, b, Response{})
	os.WriteFile(StreamPath(p, b.ID), []byte("output"), 0o600)
	Sweep(p, time.Now().Add(2*answerTTL), func(id string) bool { return id == b.ID })
	if _, ok, _ := Poll(p, a, 1); ok {
		t.Error("an old answer nobody collected was kept")
	}
	if _, err := os.Stat(StreamPath(p, b.ID)); err != nil {
		t.Error("the stream of a run in flight was swept")
	}
}
