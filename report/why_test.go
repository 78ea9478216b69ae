package report

import (
	"context"
	"testing"
	"time"

	"svcctl/internal/testenv"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// TestWhyAnswersNewestRunAndSaysGrace: `why JOB` answers for the
// newest run, not for a slot older than it; a slot that came due but is
// within its grace without a row is named as not missing yet; a slot past
// its grace with no row, newer than every row, is the news (never
// triggered).
func TestWhyAnswersNewestRunAndSaysGrace(t *testing.T) {
	cfg := testutil.Config(t, "", `
[[job]]
name = "pull"
schedule = "@every 1h"
timezone = "UTC"
command = ["/nonexistent"]
grace = "10m"
`)
	store := testenv.Ledger(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	reg := now.Add(-3*time.Hour - 5*time.Minute) // slots at now-2h05m, now-65m (past grace) and now-5m (within grace)
	if _, err := store.Register(ctx, "job:pull", cfg.Job("pull").Registration(), reg); err != nil {
		t.Fatal(err)
	}
	rec := func(trigger runtrace.Trigger, slot, at time.Time, o runtrace.Outcome, r runtrace.Reason) int64 {
		t.Helper()
		id, err := store.Record(ctx, runtrace.Run{JobID: "job:pull", Trigger: trigger, ScheduledAt: slot, StartedAt: at,
			FinishedAt: at.Add(time.Second), Outcome: o, Reason: r, Detail: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := reg.Add(time.Hour)
	rec(runtrace.TriggerSchedule, first, first, runtrace.OutcomeOK, runtrace.ReasonCompleted)

	// The slot at now-65m has no row and is newer than every row: the news.
	d, err := Why(ctx, store, cfg, "pull", time.Time{}, now)
	if err != nil || d.Branch != "no-row" || d.Slot == nil || !d.Slot.Equal(reg.Add(2*time.Hour)) {
		t.Fatalf("a missing slot newer than every row: %+v, %v", d, err)
	}
	// A manual run after it: now the newest run is the answer, and the slot
	// within grace (now-5m) is named as not missing yet.
	manual := rec(runtrace.TriggerManual, time.Time{}, now.Add(-3*time.Minute), runtrace.OutcomeFailed, runtrace.ReasonExitNonzero)
	d, err = Why(ctx, store, cfg, "pull", time.Time{}, now)
	if err != nil || d.Row == nil || d.Row.ID != manual || d.Branch != "failed" {
		t.Fatalf("want the newest run #%d: %+v, %v", manual, d, err)
	}
	if d.Pending == nil || !d.Pending.Slot.Equal(reg.Add(3*time.Hour)) {
		t.Fatalf("the slot within grace is not named: %+v", d.Pending)
	}
	if !d.Pending.GraceUntil.Equal(d.Pending.Slot.Add(10 * time.Minute)) {
		t.Fatalf("grace until %s, want slot + 10m", d.Pending.GraceUntil)
	}
	// --at still answers for a slot.
	d, err = Why(ctx, store, cfg, "pull", first.Add(time.Minute), now)
	if err != nil || d.Row == nil || d.Row.Reason != runtrace.ReasonCompleted {
		t.Fatalf("--at the first slot: %+v, %v", d, err)
	}
}
