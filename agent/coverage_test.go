package agent

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"svcctl/runtrace"
)

// The agent's hourly refresh grows a job's coverage over the slots that
// have rows, and stops at the first that has none.
func TestRefreshCoverage(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "pull"
schedule = "* * * * *"
timezone = "UTC"
external = true
grace = "0s"
`)
	now := time.Now().UTC()
	reg := now.Add(-90 * time.Minute).Truncate(time.Minute)
	e.register("pull", reg)
	gap := reg.Add(60 * time.Minute)
	// Rows reach two minutes past now, so a minute that turns during the
	// test still has one.
	for slot := reg.Add(time.Minute); !slot.After(now.Add(2 * time.Minute)); slot = slot.Add(time.Minute) {
		if slot.Equal(gap) {
			continue
		}
		if _, err := e.Store.Record(context.Background(), runtrace.Run{JobID: runtrace.JobID("pull"), Trigger: runtrace.TriggerSchedule,
			ScheduledAt: slot, StartedAt: slot, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	a := &Agent{store: e.Store, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a.cur.Store(e.Cfg)
	a.refreshCoverage(context.Background())
	if _, ok, _ := e.Store.Coverage(context.Background(), runtrace.JobID("pull")); ok {
		t.Fatal("coverage recorded over a window with a missing slot")
	}
	// The missing slot's run arrives late (`svc-ctl exec --scheduled`).
	if _, err := e.Store.Record(context.Background(), runtrace.Run{JobID: runtrace.JobID("pull"), Trigger: runtrace.TriggerSchedule,
		ScheduledAt: gap, StartedAt: now, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}); err != nil {
		t.Fatal(err)
	}
	a.refreshCoverage(context.Background())
	c, ok, err := e.Store.Coverage(context.Background(), runtrace.JobID("pull"))
	if err != nil || !ok || !c.From.Equal(reg.Add(time.Minute)) || c.Through.Before(now.Add(-time.Minute)) {
		t.Fatalf("coverage %v %v..%v (%v); want %v through the last slot before %v", ok, c.From, c.Through, err, reg.Add(time.Minute), now)
	}
}
