package report

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"svcctl/probe"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// TestStatusHealthAgeIsTheProbesNotTheCycles: a service stopped by hand is
// cycled (skipped/paused) without being probed. Its status must show the
// last probe with that probe's age, never the age of the last cycle, which
// presented a verdict from before the stop as taken just now (issue 10,
// item 7: never a cached verdict presented as current).
func TestStatusHealthAgeIsTheProbesNotTheCycles(t *testing.T) {
	e := newEnv(t, "1s")
	sup := watchdog.NewSupervisor(e.cfg, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	probed := time.Now().UTC()
	now := probed
	sup.Now = func() time.Time { return now }
	ctx := context.Background()
	r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerManual})
	if err != nil || r.Outcome != runtrace.OutcomeOK {
		t.Fatalf("start: %+v, %v", r, err)
	}
	if _, err := sup.Stop(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	now = probed.Add(10 * time.Minute)
	if r, err := sup.Ensure(ctx, "web", watchdog.Request{Trigger: runtrace.TriggerSchedule}); err != nil || r.Reason != runtrace.ReasonPaused {
		t.Fatalf("paused cycle: %+v, %v", r, err)
	}
	rep, err := BuildStatus(ctx, e.cfg, now)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Services[0]
	if s.Health == "" {
		t.Fatal("no health verdict in status")
	}
	if !s.HealthAt.Equal(probed) {
		t.Errorf("health %q shown as taken at %v (%v ago); the last probe was at %v (10m ago)",
			s.Health, s.HealthAt, now.Sub(s.HealthAt), probed)
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
