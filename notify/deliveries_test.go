package notify

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"svcctl/runtrace"
)

func outboxEvent(id, subject string, at time.Time, channels ...string) runtrace.OutboxEvent {
	return runtrace.OutboxEvent{ID: id, Kind: "service.down", Subject: subject, CreatedAt: at,
		Payload: []byte(fmt.Sprintf(`{"id":%q}`, id)), Channels: channels}
}

func mustClaimOf(t *testing.T, s *runtrace.Store, ch, owner string, now time.Time, want int) []runtrace.Delivery {
	t.Helper()
	ds, err := s.Claim(ctxb, ch, owner, now, time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want > 0 && len(ds) != want {
		t.Fatalf("claimed %d, want %d: %+v", len(ds), want, ds)
	}
	return ds
}

// TestDeliveryBookkeeping: a failed attempt waits for its retry time, a
// delivered one is done, the channel's state follows, and all of it
// survives closing and reopening the file.
func TestDeliveryBookkeeping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc-ctl.db")
	s := openStore(t, path)
	if _, err := s.Emit(ctxb, []runtrace.OutboxEvent{outboxEvent("a", "job:pull", t0, "hook")}, nil); err != nil {
		t.Fatal(err)
	}
	ds := mustClaimOf(t, s, "hook", "me", t0, 1)
	retry := t0.Add(30 * time.Second)
	if err := (outbox{s, "me"}).failed(ctxb, ds, t0, "503 Service Unavailable", false, retry); err != nil {
		t.Fatal(err)
	}
	if ds := mustClaimOf(t, s, "hook", "me", retry.Add(-time.Millisecond), 0); len(ds) != 0 {
		t.Fatalf("claimed before its retry time: %+v", ds)
	}
	if next, ok, err := s.NextDue(ctxb, "hook"); !ok || err != nil || !next.Equal(retry) {
		t.Errorf("NextDue = %v %v %v, want %v", next, ok, err, retry)
	}
	s.Close()
	s = openStore(t, path) // a restart in between
	ds = mustClaimOf(t, s, "hook", "me2", retry, 1)
	if ds[0].Attempts != 1 || ds[0].LastError != "503 Service Unavailable" {
		t.Errorf("after restart: %+v", ds[0])
	}
	cs, _ := s.ChannelStates(ctxb)
	if len(cs) != 1 || cs[0].LastError != "503 Service Unavailable" || !cs[0].FailingSince.Equal(t0) {
		t.Errorf("channel state after failure: %+v", cs)
	}
	if err := (outbox{s, "me2"}).delivered(ctxb, ds, retry, 12*time.Millisecond, true); err != nil {
		t.Fatal(err)
	}
	cs, _ = s.ChannelStates(ctxb)
	if !cs[0].LastOK.Equal(retry) || !cs[0].FailingSince.IsZero() || cs[0].LastLatency != 12*time.Millisecond {
		t.Errorf("channel state after delivery: %+v", cs)
	}
	if _, ok, _ := s.NextDue(ctxb, "hook"); ok {
		t.Error("NextDue says something is pending after delivery")
	}
	// The subject's last message is remembered for min_interval.
	if _, err := s.Emit(ctxb, []runtrace.OutboxEvent{outboxEvent("b", "job:pull", retry, "hook")}, nil); err != nil {
		t.Fatal(err)
	}
	if ds := mustClaimOf(t, s, "hook", "me2", retry, 1); !ds[0].LastSent.Equal(retry) {
		t.Errorf("LastSent = %v, want %v", ds[0].LastSent, retry)
	}
	// A permanent failure ends the delivery.
	ds = mustClaimOf(t, s, "hook", "me3", retry.Add(time.Hour), 1)
	if err := (outbox{s, "me3"}).failed(ctxb, ds, retry, "400 Bad Request", true, retry); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, s); c[runtrace.DeliveryFailed] != 1 || c[runtrace.DeliveryDelivered] != 1 || c[runtrace.DeliveryPending] != 0 {
		t.Errorf("counts = %v", c)
	}
}

// TestLateReportOfALostClaim: a sender whose claim ran out and was taken
// reports its failed attempt late: ErrClaimLost, and neither the delivery
// nor the channel's state changes (the new owner's attempt counts). Its
// success is kept: it is true whoever holds the claim.
func TestLateReportOfALostClaim(t *testing.T) {
	s := newStore(t)
	if _, err := s.Emit(ctxb, []runtrace.OutboxEvent{outboxEvent("a", "job:pull", t0, "hook")}, nil); err != nil {
		t.Fatal(err)
	}
	mustClaimOf(t, s, "hook", "old", t0, 1)
	later := t0.Add(time.Minute) // the lease has run out
	ds := mustClaimOf(t, s, "hook", "new", later, 1)
	err := (outbox{s, "old"}).failed(ctxb, ds, later, "boom", false, later.Add(time.Hour))
	if !errors.Is(err, runtrace.ErrClaimLost) {
		t.Fatalf("late report of the old owner = %v, want ErrClaimLost", err)
	}
	if cs, _ := s.ChannelStates(ctxb); len(cs) != 0 {
		t.Errorf("channel state after a refused report: %+v, want none", cs)
	}
	if err := (outbox{s, "old"}).delivered(ctxb, ds, later, time.Millisecond, true); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, s); c[runtrace.DeliveryDelivered] != 1 {
		t.Errorf("counts = %v, want the late success kept", c)
	}
}

func TestHoldAndDefer(t *testing.T) {
	s := newStore(t)
	var evs []runtrace.OutboxEvent
	for i := range 4 {
		evs = append(evs, outboxEvent(fmt.Sprintf("f%d", i), "watchdog:proxy", t0.Add(time.Duration(i)*time.Second), "phone"))
	}
	if _, err := s.Emit(ctxb, evs, nil); err != nil {
		t.Fatal(err)
	}
	o := outbox{s, "me"}
	ds := mustClaimOf(t, s, "phone", "me", t0.Add(time.Minute), 4)
	until := t0.Add(10 * time.Minute)
	if err := o.deferTo(ctxb, ds[3:], until); err != nil {
		t.Fatal(err)
	}
	carrier, err := o.hold(ctxb, ds[:2], ds[2], t0.Add(time.Minute))
	if err != nil || carrier.HeldBack != 2 {
		t.Fatalf("hold = %+v, %v", carrier, err)
	}
	// Folding the carrier into the last one carries its count along.
	carrier2, err := o.hold(ctxb, []runtrace.Delivery{carrier}, ds[3], until)
	if err != nil {
		t.Fatal(err)
	}
	if carrier2.HeldBack != 3 {
		t.Errorf("HeldBack = %d, want 3", carrier2.HeldBack)
	}
	if c := counts(t, s); c[runtrace.DeliveryHeld] != 3 || c[runtrace.DeliveryPending] != 1 {
		t.Errorf("counts = %v, want 3 held, 1 pending", c)
	}
	if ds := mustClaimOf(t, s, "phone", "me", until.Add(-time.Millisecond), 0); len(ds) != 0 {
		t.Fatalf("the deferred delivery was due early: %+v", ds)
	}
	ds = mustClaimOf(t, s, "phone", "me", until, 1)
	if ds[0].EventID != "f3" || ds[0].HeldBack != 3 {
		t.Fatalf("due at %v: %+v, want f3 standing for 3", until, ds[0])
	}
}
