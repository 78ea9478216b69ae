package agent

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// syncBuffer is a log sink the test can read while the agent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type runningAgent struct {
	cancel context.CancelFunc
	done   chan error
	log    *syncBuffer
}

func startAgent(t *testing.T, e *testEnv, o Options) *runningAgent {
	t.Helper()
	return startAgentWith(t, e, o, nil)
}

// startAgentWith runs the agent as Run does; tweak, when set, changes the
// agent between its setup and its loops: the seam tests build their own
// faults at, so the shipped binary carries no test hook.
func startAgentWith(t *testing.T, e *testEnv, o Options, tweak func(*Agent)) *runningAgent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	o.Config, o.Ready = e.Cfg, ready
	if o.Version == "" {
		o.Version = "test"
	}
	if o.MaxStagger == 0 {
		o.MaxStagger = 200 * time.Millisecond
	}
	buf := &syncBuffer{}
	if o.LogWriter == nil {
		o.LogWriter = buf
	}
	ra := &runningAgent{cancel: cancel, done: make(chan error, 1), log: buf}
	go func() {
		a, err := newAgent(o)
		if err != nil {
			ra.done <- err
			return
		}
		if tweak != nil {
			tweak(a)
		}
		err = a.run(ctx)
		a.closeAll()
		ra.done <- err
	}()
	select {
	case <-ready:
	case err := <-ra.done:
		t.Fatalf("agent exited at start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("agent not ready")
	}
	t.Cleanup(func() {
		ra.stop(t)
		if t.Failed() {
			t.Logf("agent log:\n%s", ra.log.String())
		}
	})
	return ra
}

func (ra *runningAgent) stop(t *testing.T) error {
	ra.cancel()
	select {
	case err := <-ra.done:
		ra.done <- err
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("agent did not stop")
		return nil
	}
}

func latestStarted(e *testEnv, name string, after time.Time) *runtrace.Run {
	rs, err := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID(name), Reason: runtrace.ReasonStarted, Since: after, Limit: 1})
	if err != nil || len(rs) == 0 {
		return nil
	}
	return &rs[0]
}

func TestAgentFastPathAndHungService(t *testing.T) {
	a, b := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := newEnv(t,
		testutil.Service{Name: "killed", Addr: a, Interval: "1s", Confirm: "0s"},
		testutil.Service{Name: "hung", Addr: b, Interval: "1s", Confirm: "0s"})
	var ag *Agent
	startAgentWith(t, e, Options{}, func(a *Agent) { ag = a })
	// Up means the agent's own cycles finished with started: killing an
	// instance while its first cycle still waits for health is another story
	// (start-failed, backoff).
	testutil.WaitFor(t, 15*time.Second, "both services started", func() bool {
		return latestStarted(e, "killed", time.Time{}) != nil && latestStarted(e, "hung", time.Time{}) != nil && testutil.Healthy(a) && testutil.Healthy(b)
	})

	// SIGKILL one: the exit itself triggers the cycle (trigger event).
	old := e.Pid("killed")
	killedAt := time.Now()
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 10*time.Second, "killed service restarted by the fast path", func() bool {
		r := latestStarted(e, "killed", killedAt.Add(-time.Second))
		return r != nil && r.Trigger == runtrace.TriggerEvent && testutil.Healthy(a)
	})
	if _, err := os.Stat(e.Cfg.Services[0].Log[:len(e.Cfg.Services[0].Log)-len(".log")] + ".prev.log"); err != nil {
		t.Fatalf("no runtime.prev.log after the restart: %v", err)
	}
	if b, _ := os.ReadFile(e.sup.Paths.Snapshots("killed")); !strings.Contains(string(b), "exited") {
		t.Fatalf("no snapshot line naming the exit: %s", b)
	}

	// Hang the other's /health: replaced within one interval plus the probe timeout.
	oldHung := e.Pid("hung")
	hungAt := time.Now()
	testutil.Get("http://" + b + "/control/hang")
	testutil.WaitFor(t, 10*time.Second, "hung service replaced", func() bool {
		return latestStarted(e, "hung", hungAt) != nil && testutil.Healthy(b)
	})
	if ok, _ := proc.Match(oldHung); ok {
		t.Fatal("the hung instance was left running")
	}
	// The instance the cycle stopped on purpose is not news: no event cycle.
	// Its exit has been judged once its key left `replaced`; a trigger it
	// had sent would run as the very next cycle (triggers preempt the timer),
	// so wait for the next cycle after that and look at every one since.
	testutil.WaitFor(t, 10*time.Second, "the replaced instance's exit judged", func() bool {
		_, pending := ag.replaced.Load(idKey(oldHung))
		return !pending
	})
	judged := time.Now()
	testutil.WaitFor(t, 10*time.Second, "the next cycle of hung", func() bool {
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("hung"), Since: judged})
		return n >= 1
	})
	rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("hung"), Since: hungAt})
	for _, r := range rs {
		if r.Trigger == runtrace.TriggerEvent {
			t.Fatalf("the replaced instance's exit triggered cycle #%d", r.ID)
		}
	}
}

// A panic in one service's cycle is the L2 net's business: the cycle's row
// says failed/panic, the log has the stack, the loop comes back, and the
// other service is cycled all along. The panic is planted where a test can
// reach without a hook in the binary: the callback the agent gives the
// supervisor for every spawn, and boom's instance exits at once, so every
// cycle of boom spawns.
func TestAgentPanicIsContained(t *testing.T) {
	a, b := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "boom", Addr: a, Interval: "1s", Args: []string{"--exit-now", "0"}},
		testutil.Service{Name: "calm", Addr: b, Interval: "1s"})
	ra := startAgentWith(t, e, Options{}, func(ag *Agent) {
		onSpawn := ag.sup.OnSpawn
		ag.sup.OnSpawn = func(name string, c *proc.Child) {
			if name == "boom" {
				panic("injected test panic")
			}
			onSpawn(name, c)
		}
	})
	testutil.WaitFor(t, 15*time.Second, "two failed/panic rows and calm healthy", func() bool {
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("boom"), Reason: runtrace.ReasonPanic})
		return n >= 2 && testutil.Healthy(b)
	})
	if !strings.Contains(ra.log.String(), "panic.recovered") || !strings.Contains(ra.log.String(), "goroutine") {
		t.Fatalf("no stack in the log:\n%s", ra.log.String())
	}
	calm, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("calm"), Outcome: runtrace.OutcomeOK})
	if calm == 0 {
		t.Fatal("the other service was not cycled")
	}
}

func TestSecondAgentRefused(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t), Interval: "1h"})
	startAgent(t, e, Options{})
	err := Run(context.Background(), Options{Config: e.Cfg, LogWriter: &syncBuffer{}})
	var are *state.AlreadyRunningError
	if !errors.As(err, &are) || are.PID != os.Getpid() {
		t.Fatalf("second agent: %v, want state.AlreadyRunningError naming pid %d", err, os.Getpid())
	}
}

// jumpClock is a clock whose wall time can jump, as after a host sleep.
type jumpClock struct {
	mu    sync.Mutex
	start time.Time
	jump  time.Duration
}

func (c *jumpClock) Wall() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.jump).Round(0)
}
func (c *jumpClock) Mono() time.Duration { return time.Since(c.start) }
func (c *jumpClock) sleep(d time.Duration) {
	c.mu.Lock()
	c.jump += d
	c.mu.Unlock()
}

func TestClockJumpTriggersCatchUp(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h"})
	clk := &jumpClock{start: time.Now()}
	startAgent(t, e, Options{Clock: clk, SleepTick: 20 * time.Millisecond})
	clk.sleep(3 * time.Hour)
	testutil.WaitFor(t, 10*time.Second, "resumed row and a catch-up cycle", func() bool {
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.AgentID, Reason: runtrace.ReasonResumed})
		rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Limit: 10})
		catchUp := false
		for _, r := range rs {
			catchUp = catchUp || r.Trigger == runtrace.TriggerCatchUp
		}
		return n == 1 && catchUp
	})
	r, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.AgentID, Reason: runtrace.ReasonResumed})
	if !strings.Contains(string(r[0].Detail), "away_ms") {
		t.Fatalf("resumed row lacks how long the host was away: %s", r[0].Detail)
	}
}

func TestDrainFinishesRunsAndDeletesHeartbeat(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h"})
	ra := startAgent(t, e, Options{})
	testutil.WaitFor(t, 15*time.Second, "heartbeat and a cycle", func() bool {
		hb, _ := e.Store.Heartbeats(context.Background())
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web")})
		return len(hb) == 1 && n >= 1
	})
	if err := ra.stop(t); err != nil {
		t.Fatalf("clean stop returned %v", err)
	}
	hb, _ := e.Store.Heartbeats(context.Background())
	if len(hb) != 0 {
		t.Fatalf("heartbeat left after a clean stop: %+v", hb)
	}
	running, _ := e.Store.Count(context.Background(), runtrace.Filter{Outcome: runtrace.OutcomeRunning})
	if running != 0 {
		t.Fatalf("%d rows left running", running)
	}
	if !testutil.Healthy(addr) {
		t.Fatal("the supervised service was stopped with the agent")
	}
}

// TestRedactionEverywhere: one rule set (internal/redact) for every writer
// of the agent: the token is in none of them, and the harmless values of
// the env (NO_PROXY=127.0.0.1, the port) do not corrupt the evidence: the
// probe target is recorded as it is.
func TestRedactionEverywhere(t *testing.T) {
	addr := testutil.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	const token = "tok-9f8e7d6c5b4a"
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1s",
		Env:  map[string]string{"API_TOKEN": token, "NO_PROXY": "127.0.0.1", "PORT": port, "DEBUG": "true"},
		Args: []string{"--body", "ok"}})
	// The probe URL carries the token in its query.
	e.Cfg.Services[0].Health.HTTP = "http://" + addr + "/health?token=" + token
	ra := startAgent(t, e, Options{})
	testutil.WaitFor(t, 15*time.Second, "up", func() bool { return latestStarted(e, "web", time.Time{}) != nil && testutil.Healthy(addr) })
	old := e.Pid("web")
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 10*time.Second, "restarted", func() bool { return latestStarted(e, "web", time.Now().Add(-5*time.Second)) != nil })
	ra.stop(t)
	if strings.Contains(ra.log.String(), token) {
		t.Fatal("token in agent.log")
	}
	snaps, _ := os.ReadFile(e.sup.Paths.Snapshots("web"))
	if strings.Contains(string(snaps), token) {
		t.Fatal("token in snapshots.jsonl")
	}
	rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{})
	evidence := false
	for _, r := range rs {
		if strings.Contains(string(r.Detail), token) {
			t.Fatalf("token in run_trace row %d: %s", r.ID, r.Detail)
		}
		evidence = evidence || strings.Contains(string(r.Detail), "http://"+addr+"/health?token=[redacted]")
	}
	if !evidence {
		t.Fatalf("no run_trace row shows the probe target http://%s/health?token=[redacted] intact", addr)
	}
	last, _ := os.ReadFile(e.sup.Paths.WatchdogLast())
	if strings.Contains(string(last), token) {
		t.Fatal("token in watchdog.last.json")
	}
}

func TestMetricsEndpoint(t *testing.T) {
	addr, maddr := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1s"})
	e.Cfg.Agent.MetricsListen = maddr
	startAgent(t, e, Options{})
	body := ""
	testutil.WaitFor(t, 10*time.Second, "a cycle in /metrics", func() bool {
		r, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			return false
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		return strings.Contains(body, `svcctl_cycles_total{service="web",outcome="ok"`)
	})
	for _, want := range []string{`svcctl_service_state{service="web",state="healthy"} 1`, "svcctl_ledger_up 1", "# TYPE svcctl_cycles_total counter"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "svcctl_service_restarts_total{") {
		t.Errorf("the first start counted as a restart:\n%s", body)
	}
	r, err := http.Get("http://" + maddr + "/healthz")
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", r, err)
	}
	r.Body.Close()
	// A crash replaced is the watchdog's restart, counted by whom.
	testutil.KillPID(t, int(e.Pid("web").PID))
	testutil.WaitFor(t, 10*time.Second, "the restart in /metrics", func() bool {
		r, err := http.Get("http://" + maddr + "/metrics")
		if err != nil {
			return false
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return strings.Contains(string(b), `svcctl_service_restarts_total{service="web",by="watchdog"} 1`)
	})
}

func TestMetricsPortTakenIsLoud(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t), Interval: "1h"})
	e.Cfg.Agent.MetricsListen = ln.Addr().String()
	ra := startAgent(t, e, Options{})
	testutil.WaitFor(t, 5*time.Second, "metrics.failed in the log", func() bool {
		// The listen error's words are the OS's ("address already in use",
		// "only one usage of each socket address"): the log names the address.
		return strings.Contains(ra.log.String(), "metrics.failed") && strings.Contains(ra.log.String(), "listen tcp "+ln.Addr().String())
	})
}

// TestAgentAdoptsInstanceItDidNotSpawn: after an agent restart (or a manual
// start), the running instance is watched by its recorded identity (pidfd),
// so its death is noticed at once, not at the next interval.
func TestAgentAdoptsInstanceItDidNotSpawn(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h"})
	wantResult(t, e.ensure("web", watchdog.Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted) // as `svc-ctl start` would
	startAgent(t, e, Options{})
	testutil.WaitFor(t, 10*time.Second, "the agent's first cycle", func() bool {
		rs, _ := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web")})
		return len(rs) == 2 && rs[0].Trigger == runtrace.TriggerSchedule && rs[0].Outcome == runtrace.OutcomeOK
	})
	old := e.Pid("web")
	killedAt := time.Now()
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 10*time.Second, "restored through the exit watch", func() bool {
		r := latestStarted(e, "web", killedAt.Add(-time.Second))
		return r != nil && r.Trigger == runtrace.TriggerEvent && testutil.Healthy(addr)
	})
}

// An agent that was killed (or lost its power) a moment ago left its
// heartbeat: the next agent, holding the agent lock, forgets it at once, so
// after its own clean stop there is no heartbeat and status says stopped,
// not stale.
func TestStartForgetsHeartbeatsOfDeadAgents(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t), Interval: "1h"})
	dead := time.Now().UTC() // killed just now: the reaper's staleness rule cannot prove it gone yet
	if err := e.Store.Beat(context.Background(), runtrace.Heartbeat{InstanceID: "killed-agent", PID: 4242, Version: "test",
		StartedAt: dead.Add(-time.Hour), BeatAt: dead, Mode: "service"}); err != nil {
		t.Fatal(err)
	}
	ra := startAgent(t, e, Options{})
	testutil.WaitFor(t, 10*time.Second, "only the running agent's heartbeat", func() bool {
		hbs, _ := e.Store.Heartbeats(context.Background())
		return len(hbs) == 1 && hbs[0].InstanceID != "killed-agent"
	})
	if err := ra.stop(t); err != nil {
		t.Fatal(err)
	}
	if hbs, _ := e.Store.Heartbeats(context.Background()); len(hbs) != 0 {
		t.Fatalf("heartbeats after a clean stop: %+v", hbs)
	}
}

// The agent's rows name the boot they were written in (run_trace.boot_id),
// so a row is told to its boot without comparing clocks (the reboot drill
// judges by it).
func TestAgentRowsNameTheBoot(t *testing.T) {
	e := newEnv(t)
	startAgent(t, e, Options{})
	db, err := sql.Open("sqlite", state.PathsOf(e.Cfg).DB()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var boot string
	err = db.QueryRow(`SELECT COALESCE(boot_id, '') FROM run_trace WHERE job_id = 'agent' AND trigger = 'startup'`).Scan(&boot)
	if err != nil || boot != proc.BootID() {
		t.Fatalf("the startup row's boot_id = %q, %v; want this boot's, %q", boot, err, proc.BootID())
	}
}
