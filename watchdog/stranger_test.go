package watchdog

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
)

// startStranger runs a server svc-ctl did not start on addr (another
// user's, on a shared workstation) and returns its identity; the test ends
// it, never svc-ctl.
func startStranger(t *testing.T, addr string) proc.Identity {
	t.Helper()
	cmd := exec.Command(testsvcBin, "--addr", addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testutil.WaitFor(t, 5*time.Second, "the stranger serves", func() bool { return testutil.Healthy(addr) })
	id, err := proc.IdentityOf(int32(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// killInstance ends the recorded instance from outside and waits until no
// process of it is left.
func (e *testEnv) killInstance(t *testing.T, name string) proc.Identity {
	t.Helper()
	old := e.Pid(name)
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "the instance gone", func() bool { ok, _ := proc.Match(old); return !ok })
	return old
}

// TestStrangerOnTheHealthPortIsNotCertified: the service svc-ctl started
// dies and another process takes its port and answers its health check.
// The cycle must not record ok/already-running: it is failed/start-failed
// naming the holder, in the row, state.json and the snapshot; the holder is
// never signalled and nothing is spawned beside it. A manual start says the
// same. Once the stranger is gone, the service is started again.
func TestStrangerOnTheHealthPortIsNotCertified(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, GiveUpAfter: 3, Backoff: "1h"})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	old := e.killInstance(t, "web")
	stranger := startStranger(t, addr)

	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	held := fmt.Sprintf("held by pid %d ", stranger.PID)
	for _, want := range []string{held, "not this service's instance", fmt.Sprintf("started as pid %d", old.PID),
		"not certified healthy", "not signalled", "no new instance spawned"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q does not say %q", r.Message, want)
		}
	}
	if h := r.Detail.PortHolder; h == nil || h.PID != stranger.PID || h.Ours {
		t.Errorf("detail port_holder = %+v, want pid %d, not ours", h, stranger.PID)
	}
	if !strings.HasPrefix(r.Detail.Cause, "unhealthy: ") || !strings.Contains(r.Detail.Cause, held) {
		t.Errorf("cause %q does not name the stranger", r.Detail.Cause)
	}
	if r.Detail.BackoffUntil == nil || r.Detail.Failures != 1 {
		t.Errorf("detail %+v: want a failed start counted (backoff, 1 failure)", r.Detail)
	}
	if ok, _ := proc.Match(stranger); !ok {
		t.Fatal("the stranger was signalled")
	}
	if e.Pid("web") != old {
		t.Fatal("an instance was spawned beside the stranger")
	}
	// The ledger row, state.json and the snapshot say it too.
	row, err := e.Store.Latest(t.Context(), runtrace.WatchdogID("web"))
	if err != nil || row == nil || row.Reason != runtrace.ReasonStartFailed || !strings.Contains(string(row.Detail), held) {
		verdict, detail := "none", ""
		if row != nil {
			verdict, detail = row.Verdict(), string(row.Detail)
		}
		t.Fatalf("ledger row %s, %v; want start-failed naming %s in its detail: %.400s", verdict, err, held, detail)
	}
	st, err := state.LoadService(e.sup.Paths.StateFile("web"))
	if err != nil || st.State == state.Healthy || !strings.Contains(st.AnsweredBy, held) {
		t.Fatalf("state.json: %s, answered_by %q (%v); want not healthy, naming %s", st.State, st.AnsweredBy, err, held)
	}
	es, _, err := snapshot.Read(e.sup.Paths.Snapshots("web"), 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("snapshots: %v, %v", es, err)
	}
	if b, _ := json.Marshal(es[0].PortHolder); !strings.Contains(string(b), fmt.Sprintf(`"pid":%d`, stranger.PID)) ||
		!strings.Contains(es[0].Reason, held) {
		t.Errorf("snapshot names no port holder: reason %q, port_holder %s", es[0].Reason, b)
	}

	// A person's start: the same verdict, not already-running.
	r = e.ensure("web", Request{Manual: true})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if !strings.Contains(r.Message, held) {
		t.Errorf("manual start: %q does not name the stranger", r.Message)
	}
	if ok, _ := proc.Match(stranger); !ok {
		t.Fatal("the stranger was signalled by a manual start")
	}

	// Given up (3 failed starts): a cycle still does not call it healthy.
	wantResult(t, e.ensure("web", Request{Manual: true}), runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	r = e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeSkipped, runtrace.ReasonGivenUp)
	if !strings.Contains(r.Message, held) {
		t.Errorf("given-up: %q does not name the stranger", r.Message)
	}

	// The stranger leaves: a start brings the service back.
	testutil.KillPID(t, int(stranger.PID))
	testutil.WaitFor(t, 5*time.Second, "the stranger gone", func() bool { return !portAnswers(addr) })
	r = e.ensure("web", Request{Manual: true})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if st, _ := state.LoadService(e.sup.Paths.StateFile("web")); st.AnsweredBy != "" {
		t.Errorf("answered_by %q outlives the stranger", st.AnsweredBy)
	}
}

// TestStrangerRuleBoundaries: a service svc-ctl never started (no record)
// is adopted as before, and a health check that is not a local port (here an
// exec check) judges something the service need not serve itself: neither
// is judged by who holds a port.
func TestStrangerRuleBoundaries(t *testing.T) {
	t.Run("no record", func(t *testing.T) {
		addr := testutil.FreeAddr(t)
		e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
		startStranger(t, addr)
		wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	})
	t.Run("exec check", func(t *testing.T) {
		addr := testutil.FreeAddr(t)
		svc := testutil.Service{Name: "web", Addr: addr}.TOML(testsvcBin)
		svc = strings.Replace(svc, `http = "http://`+addr+`/health"`, fmt.Sprintf(`exec = [%q, "--exit-now", "0"]`, testsvcBin), 1) // true, on every OS
		e := envOf(t, svc)
		// A restart by hand spawns whatever the check says: now there is a record.
		wantResult(t, e.ensure("web", Request{Restart: true}), runtrace.OutcomeOK, runtrace.ReasonRestarted)
		e.killInstance(t, "web")
		startStranger(t, addr)
		wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	})
}
