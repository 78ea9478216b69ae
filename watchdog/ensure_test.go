package watchdog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
)

func TestEnsureHealthySpawnsNothing(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	before := e.Pid("web")
	procsBefore := testsvcPIDs(t, addr)
	r := e.ensure("web", Request{})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	if after := e.Pid("web"); after != before {
		t.Fatalf("pid file changed: %+v -> %+v", before, after)
	}
	if after := testsvcPIDs(t, addr); len(after) != len(procsBefore) {
		t.Fatalf("process list changed: %v -> %v", procsBefore, after)
	}
	// The row is in the ledger, finished by id.
	row, err := e.Store.Latest(context.Background(), "watchdog:web")
	if err != nil || row == nil || row.ID != r.RunID || row.Reason != runtrace.ReasonAlreadyRunning {
		t.Fatalf("ledger row = %+v, %v; want run %d already-running", row, err, r.RunID)
	}
}

func TestEnsureRestartsKilledService(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Args: []string{"--startup-delay", "200ms"}})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	old := e.Pid("web")
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "old instance gone", func() bool { ok, _ := proc.Match(old); return !ok })
	r := e.ensure("web", Request{})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if r.Detail.HealthyAfterMS > 5000 {
		t.Fatalf("healthy after %d ms, beyond start_timeout", r.Detail.HealthyAfterMS)
	}
	if !testutil.Healthy(addr) {
		t.Fatal("service not healthy after started")
	}
	if e.Pid("web").PID == old.PID {
		t.Fatal("pid file still names the killed instance")
	}
}

func TestEnsureReplacesHungService(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	old := e.Pid("web")
	testutil.Get("http://" + addr + "/control/hang")
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if ok, _ := proc.Match(old); ok {
		t.Fatal("the hung instance is still alive")
	}
	if !strings.Contains(r.Detail.OldInstance, "stopped") {
		t.Fatalf("old instance: %q, want stopped", r.Detail.OldInstance)
	}
	if !testutil.Healthy(addr) {
		t.Fatal("new instance not healthy")
	}
}

func TestEnsureExitAtOnceBacksOffThenGivesUp(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "bad", Addr: addr, Args: []string{"--exit-now", "1"}, GiveUpAfter: 2, Backoff: "1h"})
	r := e.ensure("bad", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if !strings.Contains(r.Message, "exited with code 1") {
		t.Fatalf("message %q does not say it exited", r.Message)
	}
	if r.Detail.BackoffUntil == nil || r.Detail.Failures != 1 {
		t.Fatalf("detail = %+v, want backoff and 1 failure", r.Detail)
	}
	wantResult(t, e.ensure("bad", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeSkipped, runtrace.ReasonBackoff)
	// A manual start ignores backoff; the second failure gives up.
	r = e.ensure("bad", Request{Manual: true})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if r.Detail.State != state.GivenUp {
		t.Fatalf("state %q after %d failures, want given-up", r.Detail.State, r.Detail.Failures)
	}
	// Given-up persists across processes (a new supervisor reads the state file).
	e.sup = NewSupervisor(e.Cfg, e.Store, nil)
	wantResult(t, e.ensure("bad", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeSkipped, runtrace.ReasonGivenUp)
}

// A given-up service whose own instance comes up later (it was slower than
// start_timeout) is healthy again at its next cycle. (Something else on its
// port is not: TestStrangerOnTheHealthPortIsNotCertified.)
func TestGivenUpReturnsToHealthyByItself(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "svc", Addr: addr, Args: []string{"--startup-delay", "1500ms"},
		StartTimeout: "200ms", GiveUpAfter: 1})
	r := e.ensure("svc", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if r.Detail.State != state.GivenUp {
		t.Fatalf("state %q, want given-up", r.Detail.State)
	}
	t.Cleanup(func() { e.stopService("svc") })
	testutil.WaitFor(t, 5*time.Second, "the slow instance healthy", func() bool { return testutil.Healthy(addr) })
	r = e.ensure("svc", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	if r.Detail.State != state.Healthy || r.Detail.Failures != 0 {
		t.Fatalf("detail %+v, want healthy with 0 failures", r.Detail)
	}
}

func TestConcurrentStartsSpawnOnce(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Args: []string{"--startup-delay", "300ms"}})
	before := testsvcPIDs(t, addr)
	var wg sync.WaitGroup
	results := make([]Result, 20)
	for i := range results {
		// Separate supervisors: the lock is an OS file lock, per open file.
		sup := NewSupervisor(e.Cfg, e.Store, nil)
		wg.Go(func() {
			results[i], _ = sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerManual, Manual: true})
		})
	}
	wg.Wait()
	started := 0
	for _, r := range results {
		switch r.Reason {
		case runtrace.ReasonStarted:
			started++
		case runtrace.ReasonAlreadyRunning:
		default:
			t.Errorf("unexpected %s/%s: %s", r.Outcome, r.Reason, r.Message)
		}
	}
	after := testsvcPIDs(t, addr)
	if started != 1 || len(after)-len(before) != 1 {
		t.Fatalf("started %d times, %d new processes; want exactly 1", started, len(after)-len(before))
	}
}

func TestPIDReuseIsNeverSignalled(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	sleeper := exec.Command(testsvcBin, "--exit-now", "0", "--sleep", "60s")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	id, err := proc.IdentityOf(int32(sleeper.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// The pid file names the sleeper's pid, as after a reboot reused it, with
	// the identity of the instance we once spawned.
	id.Exe = testsvcBin
	id.CreateTime -= 3_600_000
	id.Start -= 360_000 // another start stamp: another process
	if err := proc.WritePidFile(e.sup.Paths.Pid("web"), id); err != nil {
		t.Fatal(err)
	}
	r := e.ensure("web", Request{})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if !strings.Contains(r.Detail.OldInstance, "not signalled") {
		t.Fatalf("old instance: %q", r.Detail.OldInstance)
	}
	if !proc.Alive(int32(sleeper.Process.Pid)) {
		t.Fatal("the unrelated process was signalled")
	}
}

func TestEvidenceBeforeSpawn(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Args: []string{"--tick", "20ms"}, Env: map[string]string{"API_TOKEN": "s3cr3t-value-xyz"}})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	old := e.Pid("web")
	logPath := e.Cfg.Services[0].Log
	testutil.WaitFor(t, 5*time.Second, "a few log lines", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Count(string(b), "tick") >= 3
	})
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "old gone", func() bool { ok, _ := proc.Match(old); return !ok })
	oldLog, _ := os.ReadFile(logPath)
	r := e.ensure("web", Request{})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)

	prev, err := os.ReadFile(snapshot.PrevPath(logPath))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(prev), string(oldLog)) {
		t.Fatalf("runtime.prev.log does not hold what runtime.log held before the restart")
	}
	newLog, _ := os.ReadFile(logPath)
	if strings.Contains(string(newLog), pidLine(old.PID)) {
		t.Fatal("the new runtime.log holds the old instance's lines")
	}
	es, _, err := snapshot.Read(e.sup.Paths.Snapshots("web"), 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("snapshots: %v %v", es, err)
	}
	s := es[0]
	tail := strings.Join(s.LogTail, "\n")
	// The snapshot holds the old instance's lines and none of the new one's:
	// it was on disk before the new process wrote its first line.
	if !strings.Contains(tail, "tick") || strings.Contains(tail, pidLine(r.Detail.PID)) {
		t.Fatalf("snapshot log tail is not the old instance's:\n%s", tail)
	}
	if s.RunID != r.RunID || len(s.EnvNames) != 1 || s.EnvNames[0] != "API_TOKEN" {
		t.Fatalf("snapshot = %+v", s)
	}
	raw, _ := os.ReadFile(e.sup.Paths.Snapshots("web"))
	if strings.Contains(string(raw), "s3cr3t-value-xyz") {
		t.Fatal("an env value reached snapshots.jsonl")
	}
}

func pidLine(pid int32) string { return "testsvc: pid " + strconv.Itoa(int(pid)) + " starting" }

func TestForeignPortHolderIsStartFailedWithReason(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	r := e.ensure("web", Request{})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	// The holder is named (it is this test process), never signalled, and
	// no instance is spawned beside it: it could not bind the port.
	self := fmt.Sprintf("held by pid %d ", os.Getpid())
	for _, want := range []string{self, "not this service's instance", "not signalled", "500"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("reason %q does not say %q", r.Message, want)
		}
	}
	if h := r.Detail.PortHolder; h == nil || h.PID != int32(os.Getpid()) || h.Ours || h.User == "" {
		t.Errorf("detail port_holder = %+v, want this process, not ours, with its user", h)
	}
	if _, err := os.Stat(e.sup.Paths.Pid("web")); !os.IsNotExist(err) {
		t.Errorf("an instance was spawned next to the port holder (pid file: %v)", err)
	}
	if !testutil.Healthy(addr) && !portAnswers(addr) {
		t.Error("the port holder stopped answering")
	}
}

func portAnswers(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	return err == nil
}

func TestPausedDoesNothingAndForExpires(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	clock := testkit.NewClock(time.Now())
	e.sup.Now = clock.Now
	if _, err := e.sup.PauseTarget("web", 10*time.Minute, "maintenance"); err != nil {
		t.Fatal(err)
	}
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeSkipped, runtrace.ReasonPaused)
	if _, err := os.Stat(e.sup.Paths.Pid("web")); !os.IsNotExist(err) {
		t.Fatal("a paused service was spawned")
	}
	clock.Advance(10*time.Minute + time.Second) // the --for expires
	r = e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if _, err := os.Stat(e.sup.Paths.Paused("web")); !os.IsNotExist(err) {
		t.Fatal("expired sentinel not removed")
	}
}

func TestManualStartClearsPause(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	e.sup.PauseTarget("web", 0, "stopped")
	wantResult(t, e.ensure("web", Request{Manual: true}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	if p, _ := state.ReadPause(e.sup.Paths.Paused("web")); p != nil {
		t.Fatal("manual start left the pause")
	}
}

func TestStopIsIdentityCheckedAndPauses(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	id := e.Pid("web")
	rep, err := e.sup.Stop(context.Background(), "web")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Paused || !strings.HasPrefix(rep.Result, "stopped") {
		t.Fatalf("report %+v", rep)
	}
	if ok, _ := proc.Match(id); ok {
		t.Fatal("still running after stop")
	}
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeSkipped, runtrace.ReasonPaused)
}

func TestWatchdogLastKeepsEveryService(t *testing.T) {
	a, b := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "a", Addr: a}, testutil.Service{Name: "b", Addr: b})
	e.ensure("a", Request{})
	e.ensure("b", Request{})
	lf, err := state.ReadLast(e.sup.Paths.WatchdogLast())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		l := lf.Services[n]
		row, err := e.Store.Latest(context.Background(), runtrace.WatchdogID(n))
		if l == nil || l.Reason != runtrace.ReasonStarted || err != nil || row == nil || l.RunID != row.ID {
			t.Fatalf("watchdog.last.json for %s: %+v; want ok/started naming run %+v", n, l, row)
		}
	}
}

// A recorded instance that is provably gone is the second look: no waiting
// out confirm before the restart.
func TestGoneInstanceSkipsConfirm(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Confirm: "2s"})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	old := e.Pid("web")
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "old gone", func() bool { ok, _ := proc.Match(old); return !ok })
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if r.Detail.SecondLook != nil {
		t.Fatalf("took a second look: %q %v", r.Detail.OldInstance, r.Detail.SecondLook)
	}
}

// An unknown name is the caller's mistake: nothing ran, so there is no
// verdict (not failed/spawn-error) and no row.
func TestUnknownServiceIsAnErrorNotAVerdict(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	r, err := e.sup.Ensure(context.Background(), "nosuch", Request{Trigger: runtrace.TriggerManual})
	if !errors.Is(err, ErrUnknownName) || !strings.Contains(err.Error(), "web") {
		t.Fatalf("Ensure(nosuch) = %+v, %v; want ErrUnknownName naming the services", r, err)
	}
	if n, _ := e.Store.Count(context.Background(), runtrace.Filter{}); n != 0 {
		t.Fatalf("%d rows written for an unknown service", n)
	}
}

// A panic inside a cycle finishes its run as failed/panic with the stack,
// then goes on up to the L2 net that called it.
func TestPanicInCycleIsRecordedAndReraised(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	e.sup.OnSpawn = func(string, *proc.Child) { panic("boom in a cycle") }
	func() {
		defer func() {
			if p := recover(); p != "boom in a cycle" {
				t.Fatalf("recovered %v, want the cycle's panic re-raised", p)
			}
		}()
		e.sup.Ensure(context.Background(), "web", Request{Trigger: runtrace.TriggerSchedule})
	}()
	rs, err := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web")})
	if err != nil || len(rs) != 1 || rs[0].Verdict() != "failed/panic" || !strings.Contains(string(rs[0].Detail), "goroutine") {
		t.Fatalf("runs = %+v, %v; want one failed/panic row with the stack", rs, err)
	}
	lf, _ := state.ReadLast(e.sup.Paths.WatchdogLast())
	if l := lf.Services["web"]; l == nil || l.Reason != runtrace.ReasonPanic {
		t.Fatalf("watchdog.last.json: %+v", l)
	}
}
