package jobs

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"svcctl/internal/testenv"
	"svcctl/runtrace"
)

// The hourly refresh grows a job's coverage over the slots that
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
	st := testenv.Ledger(t, e.cfg)
	if _, err := st.Register(context.Background(), runtrace.JobID("pull"), e.cfg.Job("pull").Registration(), reg); err != nil {
		t.Fatal(err)
	}
	gap := reg.Add(60 * time.Minute)
	// Rows reach two minutes past now, so a minute that turns during the
	// test still has one.
	for slot := reg.Add(time.Minute); !slot.After(now.Add(2 * time.Minute)); slot = slot.Add(time.Minute) {
		if slot.Equal(gap) {
			continue
		}
		if _, err := st.Record(context.Background(), runtrace.Run{JobID: runtrace.JobID("pull"), Trigger: runtrace.TriggerSchedule,
			ScheduledAt: slot, StartedAt: slot, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}); err != nil {
			t.Fatal(err)
		}
	}
	refresh := func() {
		RefreshCoverage(context.Background(), st, e.cfg.Jobs, e.cfg.Agent.Retention, slog.New(slog.DiscardHandler))
	}
	refresh()
	if _, ok, _ := st.Coverage(context.Background(), runtrace.JobID("pull")); ok {
		t.Fatal("coverage recorded over a window with a missing slot")
	}
	// The missing slot's run arrives late (`svc-ctl exec --scheduled`).
	if _, err := st.Record(context.Background(), runtrace.Run{JobID: runtrace.JobID("pull"), Trigger: runtrace.TriggerSchedule,
		ScheduledAt: gap, StartedAt: now, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}); err != nil {
		t.Fatal(err)
	}
	refresh()
	c, ok, err := st.Coverage(context.Background(), runtrace.JobID("pull"))
	if err != nil || !ok || !c.From.Equal(reg.Add(time.Minute)) || c.Through.Before(now.Add(-time.Minute)) {
		t.Fatalf("coverage %v %v..%v (%v); want %v through the last slot before %v", ok, c.From, c.Through, err, reg.Add(time.Minute), now)
	}
}
