package report

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"svcctl/runtrace"
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
