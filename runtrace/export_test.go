package runtrace

import (
	"errors"
	"testing"
	"time"
)

// TestFinishFeedOrder: rows are numbered when they are finished, not when
// they start: a job begun first and finished last comes last, a row
// recorded finished at once gets its number, a running row none; a cursor
// read after them starts at the head and sees only what finishes later.
func TestFinishFeedOrder(t *testing.T) {
	s := newStore(t)
	cur, err := s.ExportCursor(ctxb, "otel", t0)
	if err != nil || cur != 0 {
		t.Fatalf("new cursor = %d, %v; want 0", cur, err)
	}
	long := mustBegin(t, s, "job:long")
	quick := mustRecord(t, s, Run{JobID: "watchdog:proxy", StartedAt: t0.Add(time.Second), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning})
	if err := s.Finish(ctxb, long, OutcomeFailed, ReasonExitNonzero, nil, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	mustBegin(t, s, "job:still-running")
	rows, head, err := s.FinishedAfter(ctxb, cur, 10)
	if err != nil {
		t.Fatal(err)
	}
	if head != 2 || len(rows) != 2 || rows[0].ID != quick || rows[1].ID != long || rows[0].Seq != 1 || rows[1].Seq != 2 {
		t.Fatalf("feed = %+v head %d; want the quick row (seq 1) then the long one (seq 2), head 2", rows, head)
	}
	if rows[1].Outcome != OutcomeFailed || rows[1].Reason != ReasonExitNonzero {
		t.Fatalf("row as read: %+v", rows[1].Run)
	}
	// A second channel created now starts at the head.
	if c2, err := s.ExportCursor(ctxb, "other", t0); err != nil || c2 != 2 {
		t.Fatalf("second channel's cursor = %d, %v; want the head, 2", c2, err)
	}
	if err := s.AdvanceExportCursor(ctxb, "otel", 0, 2, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceExportCursor(ctxb, "otel", 0, 1, t0); !errors.Is(err, ErrCursorMoved) {
		t.Fatalf("advance from a stale cursor: %v, want ErrCursorMoved", err)
	}
	if c, _ := s.ExportCursor(ctxb, "otel", t0); c != 2 {
		t.Fatalf("cursor after advance = %d, want 2", c)
	}
}

// TestFinishFeedGapIsPruned: a row deleted before it was exported leaves
// a gap in seq, which is how an exporter counts what it can no longer send.
func TestFinishFeedGapIsPruned(t *testing.T) {
	s := newStore(t)
	for i := range 3 {
		mustRecord(t, s, Run{JobID: "job:pull", StartedAt: t0.Add(time.Duration(i) * time.Hour), Outcome: OutcomeOK, Reason: ReasonCompleted})
	}
	if n, err := s.Prune(ctxb, t0.Add(90*time.Minute)); err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v", n, err)
	}
	rows, head, err := s.FinishedAfter(ctxb, 0, 10)
	if err != nil || head != 3 || len(rows) != 1 || rows[0].Seq != 3 {
		t.Fatalf("after prune: %+v head %d, %v; want seq 3 alone (1 and 2 pruned)", rows, head, err)
	}
}

// TestClaimHeadKeepsOrder: an event waiting for its retry holds back every
// newer one of the channel, which Claim (per delivery) would not.
func TestClaimHeadKeepsOrder(t *testing.T) {
	s := newStore(t)
	if _, err := s.Emit(ctxb, []OutboxEvent{event("a", "job:x", t0, "otel"), event("b", "job:x", t0.Add(time.Second), "otel")}, nil); err != nil {
		t.Fatal(err)
	}
	ds, _, err := s.ClaimHead(ctxb, "otel", "me", t0.Add(2*time.Second), time.Minute, 10)
	if err != nil || len(ds) != 2 || ds[0].EventID != "a" || ds[1].EventID != "b" {
		t.Fatalf("ClaimHead = %+v, %v; want a, b", ds, err)
	}
	retry := t0.Add(time.Hour)
	stepAll(t, s, ds, func(d Delivery) DeliveryStep {
		return DeliveryStep{EventID: d.EventID, Channel: d.Channel, To: DeliveryPending, Attempt: true,
			Error: "HTTP 503", NextAt: retry, Owner: "me"}
	})
	if _, err := s.Emit(ctxb, []OutboxEvent{event("c", "job:x", t0.Add(4*time.Second), "otel")}, nil); err != nil {
		t.Fatal(err)
	}
	// c is due, a and b are not: nothing may go.
	ds, due, err := s.ClaimHead(ctxb, "otel", "me", t0.Add(5*time.Second), time.Minute, 10)
	if err != nil || len(ds) != 0 || !due.Equal(retry) {
		t.Fatalf("ClaimHead before the retry = %+v due %v, %v; want nothing until %v", ds, due, err, retry)
	}
	ds, _, err = s.ClaimHead(ctxb, "otel", "me", retry, time.Minute, 10)
	if err != nil || len(ds) != 3 || ds[0].EventID != "a" || ds[2].EventID != "c" {
		t.Fatalf("ClaimHead at the retry = %+v, %v; want a, b, c", ds, err)
	}
	stepAll(t, s, ds, func(d Delivery) DeliveryStep { return delivered(d, retry) })
	if c := countDeliveries(t, s); c[DeliveryDelivered] != 3 || c[DeliveryPending] != 0 {
		t.Fatalf("deliveries = %v, want 3 delivered", c)
	}
}

// TestTrimPendingDropsOldest: past the bound the oldest waiting deliveries
// end failed, the newest stay.
func TestTrimPendingDropsOldest(t *testing.T) {
	s := newStore(t)
	var evs []OutboxEvent
	for i, id := range []string{"e1", "e2", "e3", "e4"} {
		evs = append(evs, event(id, "job:x", t0.Add(time.Duration(i)*time.Second), "otel", "hook"))
	}
	if _, err := s.Emit(ctxb, evs, nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.TrimPending(ctxb, "otel", 2, t0)
	if err != nil || n != 2 {
		t.Fatalf("TrimPending = %d, %v; want 2", n, err)
	}
	ds, _, _ := s.ClaimHead(ctxb, "otel", "me", t0.Add(time.Hour), time.Minute, 10)
	if len(ds) != 2 || ds[0].EventID != "e3" || ds[1].EventID != "e4" {
		t.Fatalf("left = %+v, want e3, e4", ds)
	}
	if got := mustClaimOf(t, s, "hook", "me", t0.Add(time.Hour), 4); len(got) != 4 {
		t.Fatal("another channel's deliveries were trimmed")
	}
}
