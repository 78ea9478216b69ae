package report

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/internal/testutil"
	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// TestStatusHealthAgeIsTheProbesNotTheCycles: a service paused by hand is
// cycled (skipped/paused) without being probed. Its status must show the
// last probe with that probe's age, never the age of the last cycle, which
// presented a verdict from before the stop as taken just now (never a cached
// verdict presented as current).
func TestStatusHealthAgeIsTheProbesNotTheCycles(t *testing.T) {
	e := newEnv(t, "1s")
	sup := watchdog.NewSupervisor(e.cfg, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	probed := time.Now().UTC()
	clock := testkit.NewClock(probed)
	sup.Now = clock.Now
	ctx := context.Background()
	r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerManual})
	if err != nil || r.Outcome != runtrace.OutcomeOK {
		t.Fatalf("start: %+v, %v", r, err)
	}
	if _, err := sup.PauseTarget("web", 0, "by hand"); err != nil {
		t.Fatal(err)
	}
	clock.Set(probed.Add(10 * time.Minute))
	if r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerSchedule}); err != nil || r.Reason != runtrace.ReasonPaused {
		t.Fatalf("paused cycle: %+v, %v", r, err)
	}
	rep, err := BuildStatus(ctx, e.cfg, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Services[0]
	if s.Health == "" {
		t.Fatal("no health verdict in status")
	}
	if !s.HealthAt.Equal(probed) {
		t.Errorf("health %q shown as taken at %v (%v ago); the last probe was at %v (10m ago)",
			s.Health, s.HealthAt, clock.Now().Sub(s.HealthAt), probed)
	}
	// Stopped by hand, it is "stopped", and its health is not shown as a
	// verdict at all: nothing checks it (before: "paused", "http 200").
	if _, err := sup.Stop(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if rep, err = BuildStatus(ctx, e.cfg, clock.Now()); err != nil {
		t.Fatal(err)
	}
	if s := rep.Services[0]; s.State != state.Stopped || s.Health != HealthNotChecked || !s.HealthAt.IsZero() {
		t.Errorf("a stopped service: state %q, health %q at %v; want stopped, %q, no time", s.State, s.Health, s.HealthAt, HealthNotChecked)
	}
}

// TestStatusHealthAgeOfAnOlderStateFile: a state.json written before
// last_probe_at existed (a service paused since then never probes again)
// shows its healthy verdict as old as its last healthy look, not as fresh as
// its last (paused) cycle.
func TestStatusHealthAgeOfAnOlderStateFile(t *testing.T) {
	e := newEnv(t, "1s")
	now := time.Now().UTC()
	healthy := now.Add(-time.Hour)
	st := state.Service{State: state.Paused, LastHealthy: healthy, LastCycle: now,
		LastProbe: []probe.Result{{Kind: "tcp", Target: e.addr, Healthy: true}}}
	if err := os.MkdirAll(e.p.ServiceDir("web"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := state.SaveService(e.p.StateFile("web"), st, true); err != nil {
		t.Fatal(err)
	}
	rep, err := BuildStatus(context.Background(), e.cfg, now)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Services[0]; !s.HealthAt.Equal(healthy) {
		t.Errorf("health %q at %v; want the last healthy look, %v", s.Health, s.HealthAt, healthy)
	}
}

// TestStatusAndVerifyNameTheStrangerOnTheHealthPort: the service svc-ctl
// started is gone and another process answers on its port. status shows the
// passing probe with who answered it, not a healthy service; verify FAILs
// it.
func TestStatusAndVerifyNameTheStrangerOnTheHealthPort(t *testing.T) {
	e := newEnv(t, "1h")
	sup := watchdog.NewSupervisor(e.cfg, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	if r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerManual}); err != nil || r.Reason != runtrace.ReasonStarted {
		t.Fatalf("start: %+v, %v", r, err)
	}
	inst, err := proc.ReadInstance(e.p.Pid("web"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.KillPID(t, int(inst.PID))
	testutil.WaitFor(t, 5*time.Second, "the instance gone", func() bool { ok, _ := proc.Match(inst.Identity); return !ok })
	cmd := exec.Command(testsvcBin, "--addr", e.addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testutil.WaitFor(t, 5*time.Second, "the stranger serves", func() bool { return testutil.Healthy(e.addr) })
	if r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerSchedule}); err != nil || r.Reason != runtrace.ReasonStartFailed {
		t.Fatalf("cycle with a stranger: %+v, %v", r, err)
	}
	held := fmt.Sprintf("held by pid %d ", cmd.Process.Pid)
	rep, err := BuildStatus(ctx, e.cfg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Services[0]
	if s.State == state.Healthy || !strings.Contains(s.Health, held) || !strings.Contains(s.AnsweredBy, held) {
		t.Errorf("status: state %s, health %q, answered_by %q; want not healthy, naming %s", s.State, s.Health, s.AnsweredBy, held)
	}
	c := check(t, Verify(ctx, e.cfg, VerifyEnv{Now: time.Now(), Install: installed}), checkStrangers)
	if c.Status != Fail || !strings.Contains(c.Evidence, held) {
		t.Errorf("verify: %+v; want FAIL naming %s", c, held)
	}
}

// TestStatusLastRestartCountsAPersonsRestart: right after `svc-ctl restart
// web` (or a reload that replaced it) the instance is seconds old, and
// LAST RESTART says so, by a person. RESTARTS 24H counts the watchdog's own
// restarts (a health signal a person's restart must not inflate), and the
// first start is no restart at all: it replaced nothing (before, it counted
// one, "cause connection refused", on every fresh install). The person's
// restart is counted apart.
func TestStatusLastRestartCountsAPersonsRestart(t *testing.T) {
	e := newEnv(t, "1h")
	sup := watchdog.NewSupervisor(e.cfg, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	started := time.Now().UTC()
	clock := testkit.NewClock(started)
	sup.Now = clock.Now
	ctx := context.Background()
	if r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerSchedule}); err != nil || r.Reason != runtrace.ReasonStarted {
		t.Fatalf("start: %+v, %v", r, err)
	}
	t.Cleanup(func() { sup.Stop(context.Background(), "web") })
	clock.Set(started.Add(10 * time.Minute))
	if r, err := sup.Restart(ctx, "web"); err != nil || r.Reason != runtrace.ReasonRestarted {
		t.Fatalf("restart: %+v, %v", r, err)
	}
	rs, err := e.store.Runs(ctx, runtrace.Filter{JobID: "watchdog:web", Reason: runtrace.ReasonRestarted})
	if err != nil || len(rs) != 1 {
		t.Fatalf("the restart's row: %v, %v", rs, err)
	}
	rep, err := BuildStatus(ctx, e.cfg, clock.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Services[0]
	if s.LastRestart.Sub(rs[0].StartedAt).Abs() > time.Millisecond { // the ledger keeps milliseconds
		t.Errorf("last restart %v; want the person's restart at %v (the watchdog's start was at %v)",
			s.LastRestart, rs[0].StartedAt, started)
	}
	if s.Restarts24h != 0 || s.RequestedRestarts24h != 1 || s.LastRestartBy != watchdog.RestartByPerson {
		t.Errorf("restarts in 24 h: %d by the watchdog, %d asked for, last by %q; want 0 (a first start is none), 1, person",
			s.Restarts24h, s.RequestedRestarts24h, s.LastRestartBy)
	}
}

// TestStartingSaysWhenTheFirstCheckComes: while the running agent has not
// checked a service yet, status says starting and by when its first check
// comes (before: "unknown", with no word of when): at once for one with no
// live instance, within its first stagger for a running one. A state a
// check left stays.
func TestStartingSaysWhenTheFirstCheckComes(t *testing.T) {
	cfg := testutil.Config(t, "", testutil.Service{Name: "web", Addr: "127.0.0.1:1", Interval: "20s"}.TOML("/bin/true")+
		testutil.Service{Name: "api", Addr: "127.0.0.1:2", Interval: "1h"}.TOML("/bin/true")+
		testutil.Service{Name: "db", Addr: "127.0.0.1:3", Interval: "1h"}.TOML("/bin/true"))
	started := time.Now().Add(-5 * time.Second).UTC()
	r := &StatusReport{Agent: AgentStatus{State: "running", StartedAt: started}, Services: []ServiceStatus{
		{Name: "web", State: state.Unknown, Instance: &Instance{LeaderPID: 42, Processes: 1}},
		{Name: "api", State: state.Unknown},
		{Name: "db", State: state.Healthy},
	}}
	markStarting(r, cfg)
	if s := r.Services[0]; s.State != state.Starting || !s.FirstCheckBy.Equal(started.Add(20*time.Second)) {
		t.Errorf("web (running, not checked): %s by %v; want starting by the agent's start + 20s", s.State, s.FirstCheckBy)
	}
	if s := r.Services[1]; s.State != state.Starting || !s.FirstCheckBy.Equal(started) {
		t.Errorf("api (nothing running): %s by %v; want starting, checked at once", s.State, s.FirstCheckBy)
	}
	if s := r.Services[2]; s.State != state.Healthy || !s.FirstCheckBy.IsZero() {
		t.Errorf("db (checked before): %s by %v; want healthy as it was", s.State, s.FirstCheckBy)
	}
	r.Agent.State = "stopped"
	r.Services[1].State, r.Services[1].FirstCheckBy = state.Unknown, time.Time{}
	if markStarting(r, cfg); r.Services[1].State != state.Unknown {
		t.Errorf("with no agent running nothing is starting: %s", r.Services[1].State)
	}
}
