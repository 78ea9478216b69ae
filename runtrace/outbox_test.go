package runtrace

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func event(id, subject string, at time.Time, channels ...string) OutboxEvent {
	return OutboxEvent{ID: id, Kind: "service.down", Subject: subject, CreatedAt: at,
		Payload: []byte(fmt.Sprintf(`{"id":%q}`, id)), Channels: channels}
}

// downEmitter raises service.down for a failed run and marks the subject
// down; it raises nothing for a subject already marked down.
func downEmitter(calls *int) Emitter {
	return func(r Run, m Mark) ([]OutboxEvent, Mark) {
		*calls++
		if r.Outcome != OutcomeFailed || m.Value == "down" {
			return nil, m
		}
		return []OutboxEvent{event(fmt.Sprintf("ev-%d", r.ID), r.JobID, r.FinishedAt, "hook", "phone")},
			Mark{Value: "down", At: r.FinishedAt}
	}
}

// TestFinishEmitCommitsBoth: the verdict, its event, one delivery per
// channel and the subject's mark arrive together, and the emitter sees the
// run as committed.
func TestFinishEmitCommitsBoth(t *testing.T) {
	s := newStore(t)
	id, err := s.Begin(ctxb, "watchdog:proxy", TriggerSchedule, time.Time{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	var seen Run
	emit := func(r Run, m Mark) ([]OutboxEvent, Mark) {
		seen = r
		return downEmitter(new(int))(r, m)
	}
	if err := s.FinishEmit(ctxb, id, OutcomeFailed, ReasonStartFailed, map[string]int{"exit_code": 3}, t0.Add(2*time.Second), emit); err != nil {
		t.Fatal(err)
	}
	if seen.ID != id || seen.JobID != "watchdog:proxy" || seen.Trigger != TriggerSchedule || !seen.StartedAt.Equal(t0) ||
		seen.Duration != 2*time.Second || string(seen.Detail) != `{"exit_code":3}` {
		t.Errorf("emitter saw %+v", seen)
	}
	ds, err := s.Deliveries(ctxb, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Channel != "hook" || ds[1].Channel != "phone" || ds[0].RunID != id ||
		ds[0].State != DeliveryPending || string(ds[0].Payload) != fmt.Sprintf(`{"id":"ev-%d"}`, id) {
		t.Fatalf("deliveries = %+v", ds)
	}
	if m, _ := s.GetMark(ctxb, SubjectMarkKey("watchdog:proxy")); m.Value != "down" {
		t.Errorf("mark = %+v, want down", m)
	}
	// A second failure of a subject already down raises nothing.
	id2 := mustBegin(t, s, "watchdog:proxy")
	if err := s.FinishEmit(ctxb, id2, OutcomeFailed, ReasonStartFailed, nil, t0.Add(time.Minute), downEmitter(new(int))); err != nil {
		t.Fatal(err)
	}
	if n := countDeliveries(t, s)[DeliveryPending]; n != 2 {
		t.Errorf("pending = %d after a repeat failure, want 2", n)
	}
}

// TestFinishEmitAllOrNothing: an event that cannot be queued rolls the
// verdict back too, and a run already finished queues nothing.
func TestFinishEmitAllOrNothing(t *testing.T) {
	s := newStore(t)
	id := mustBegin(t, s, "job:pull")
	bad := func(r Run, m Mark) ([]OutboxEvent, Mark) {
		return []OutboxEvent{{ID: "x", Kind: "job.failed", Subject: r.JobID, CreatedAt: t0}}, Mark{Value: "down", At: t0}
	}
	if err := s.FinishEmit(ctxb, id, OutcomeFailed, ReasonExitNonzero, nil, t0, bad); err == nil {
		t.Fatal("an event without payload was accepted")
	}
	if r := getRun(t, s, id); r.Outcome != OutcomeRunning {
		t.Fatalf("the verdict committed without its event: %+v", r)
	}
	if m, _ := s.GetMark(ctxb, SubjectMarkKey("job:pull")); m != (Mark{}) {
		t.Fatalf("mark written without the event: %+v", m)
	}
	calls := 0
	if err := s.FinishEmit(ctxb, id, OutcomeOK, ReasonCompleted, nil, t0, downEmitter(&calls)); err != nil {
		t.Fatal(err)
	}
	err := s.FinishEmit(ctxb, id, OutcomeFailed, ReasonExitNonzero, nil, t0, downEmitter(&calls))
	if !errors.Is(err, ErrAlreadyFinished) {
		t.Fatalf("second finish = %v, want ErrAlreadyFinished", err)
	}
	if calls != 1 || countDeliveries(t, s)[DeliveryPending] != 0 {
		t.Errorf("emitter called %d times (want 1), deliveries %v", calls, countDeliveries(t, s))
	}
}

func TestRecordEmitAndEmitIdempotent(t *testing.T) {
	s := newStore(t)
	calls := 0
	id, err := s.RecordEmit(ctxb, Run{JobID: "job:pull", Trigger: TriggerSchedule, StartedAt: t0,
		Outcome: OutcomeFailed, Reason: ReasonDependencyFailed}, downEmitter(&calls))
	if err != nil || calls != 1 {
		t.Fatalf("RecordEmit = %d, %v (calls %d)", id, err, calls)
	}
	missing := event("missing-job:pull-1", "job:pull", t0, "hook")
	marks := map[string]Mark{"missing:checked": {Value: "1", At: t0}}
	for i, want := range []int{1, 0} {
		n, err := s.Emit(ctxb, []OutboxEvent{missing}, marks)
		if err != nil || n != want {
			t.Fatalf("Emit #%d = %d, %v; want %d new", i+1, n, err, want)
		}
	}
	if got := countDeliveries(t, s)[DeliveryPending]; got != 3 {
		t.Errorf("pending = %d, want 3 (2 for the run, 1 for the missing slot)", got)
	}
	if m, _ := s.GetMark(ctxb, "missing:checked"); m.Value != "1" || !m.At.Equal(t0) {
		t.Errorf("mark = %+v", m)
	}
}

// TestClaimIsExclusive: senders racing for the same deliveries never get
// one twice while a lease holds; an expired lease hands it on, and the
// first sender's late report is refused.
func TestClaimIsExclusive(t *testing.T) {
	s := newStore(t)
	var evs []OutboxEvent
	for i := range 50 {
		evs = append(evs, event(fmt.Sprintf("e%02d", i), "watchdog:proxy", t0.Add(time.Duration(i)*time.Millisecond), "hook"))
	}
	if _, err := s.Emit(ctxb, evs, nil); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Second)
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("sender-%d", w)
			for {
				ds, err := s.Claim(ctxb, "hook", owner, now, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ds) == 0 {
					return
				}
				mu.Lock()
				for _, d := range ds {
					if prev, dup := got[d.EventID]; dup {
						t.Errorf("%s claimed by %s and %s", d.EventID, prev, owner)
					}
					got[d.EventID] = owner
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(got) != 50 {
		t.Fatalf("claimed %d of 50", len(got))
	}
	// Leases run out after a minute: the deliveries can be claimed again.
	later := now.Add(time.Minute)
	ds, err := s.Claim(ctxb, "hook", "sender-new", later, time.Minute, 100)
	if err != nil || len(ds) != 50 {
		t.Fatalf("after the lease: claimed %d, %v; want 50", len(ds), err)
	}
	late := DeliveryStep{EventID: ds[0].EventID, Channel: "hook", To: DeliveryPending, Attempt: true, Error: "boom",
		NextAt: later, Owner: got[ds[0].EventID], MustHold: true}
	err = s.StepDeliveries(ctxb, []DeliveryStep{late}, &ChannelAttempt{Channel: "hook", At: later, Err: "boom"})
	if !errors.Is(err, ErrClaimLost) {
		t.Errorf("late report of the old owner = %v, want ErrClaimLost", err)
	}
	if cs, _ := s.ChannelStates(ctxb); len(cs) != 0 {
		t.Errorf("a refused step wrote the channel's state: %+v", cs)
	}
	if n, err := s.ReleaseClaims(ctxb, "sender-new"); n != 0 || err != nil {
		t.Errorf("ReleaseClaims(own) = %d, %v", n, err)
	}
	if n, err := s.ReleaseClaims(ctxb, "agent-2"); n != 50 || err != nil {
		t.Errorf("ReleaseClaims(other) = %d, %v; want 50", n, err)
	}
}

func TestDropExpired(t *testing.T) {
	s := newStore(t)
	old, recent := t0.Add(-8*24*time.Hour), t0.Add(-time.Hour)
	if _, err := s.Emit(ctxb, []OutboxEvent{
		event("old-1", "job:a", old, "hook", "phone"), event("old-2", "job:a", old, "hook"),
		event("new", "job:a", recent, "hook"),
	}, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := s.Claim(ctxb, "hook", "me", old, time.Minute, 1) // old-1 to hook
	if err != nil || len(ds) != 1 || ds[0].Channel != "hook" {
		t.Fatalf("Claim = %+v, %v", ds, err)
	}
	if err := s.StepDeliveries(ctxb, []DeliveryStep{delivered(ds[0], old)}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.DropExpired(ctxb, t0.Add(-7*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got.Events != 2 || got.Undelivered["hook"] != 1 || got.Undelivered["phone"] != 1 || len(got.Undelivered) != 2 {
		t.Errorf("dropped %+v", got)
	}
	if c := countDeliveries(t, s); c[DeliveryPending] != 1 || len(c) != 1 {
		t.Errorf("left %v, want the recent one pending", c)
	}
}

// TestMigrateV1KeepsRows: a ledger written by the previous svc-ctl (schema
// v1) gets the outbox and keeps its runs.
func TestMigrateV1KeepsRows(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	id := mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	s.Close()
	raw := rawDB(t, path)
	downgrade(t, raw, 1)
	raw.Close()
	s = openT(t, path)
	if st := schemaOf(t, s); st.version != schemaVersion || len(st.tables) != len(wantColumns) {
		t.Fatalf("after migration: %+v", st)
	}
	if r := getRun(t, s, id); r.JobID != "job:a" {
		t.Fatalf("run lost: %+v", r)
	}
	if _, err := s.Emit(ctxb, []OutboxEvent{event("x", "job:a", t0, "hook")}, nil); err != nil {
		t.Fatal(err)
	}
}

func mustBegin(t *testing.T, s *Store, job string) int64 {
	t.Helper()
	id, err := s.Begin(ctxb, job, TriggerSchedule, time.Time{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustClaim(t *testing.T, s *Store, owner string, now time.Time, want int) []Delivery {
	return mustClaimOf(t, s, "hook", owner, now, want)
}

func mustClaimOf(t *testing.T, s *Store, ch, owner string, now time.Time, want int) []Delivery {
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

func countDeliveries(t *testing.T, s *Store) map[string]int {
	t.Helper()
	c, err := s.CountDeliveries(ctxb)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// delivered is the step of an accepted attempt (as notify takes it).
func delivered(d Delivery, at time.Time) DeliveryStep {
	return DeliveryStep{EventID: d.EventID, Channel: d.Channel, Subject: d.Subject, To: DeliveryDelivered,
		Attempt: true, DoneAt: at, Sent: true}
}

func stepAll(t *testing.T, s *Store, ds []Delivery, step func(Delivery) DeliveryStep) {
	t.Helper()
	var steps []DeliveryStep
	for _, d := range ds {
		steps = append(steps, step(d))
	}
	if err := s.StepDeliveries(ctxb, steps, nil); err != nil {
		t.Fatal(err)
	}
}

// TestStepDeliveries: the store writes a step as it is given and decides
// nothing: a step of another owner matches nothing, a kept claim stays, a
// step from a state other than pending matches nothing, Sent remembers the
// subject's last message, an attempt's error replaces the last one.
func TestStepDeliveries(t *testing.T) {
	s := newStore(t)
	if _, err := s.Emit(ctxb, []OutboxEvent{event("a", "job:a", t0, "hook"), event("b", "job:a", t0, "hook")}, nil); err != nil {
		t.Fatal(err)
	}
	ds := mustClaim(t, s, "me", t0, 2)
	next := t0.Add(time.Hour)
	stepAll(t, s, ds[:1], func(d Delivery) DeliveryStep {
		return DeliveryStep{EventID: d.EventID, Channel: d.Channel, To: DeliveryFailed, Attempt: true, Error: "no", DoneAt: t0, Owner: "other"}
	})
	stepAll(t, s, ds[1:], func(d Delivery) DeliveryStep {
		return DeliveryStep{EventID: d.EventID, Channel: d.Channel, To: DeliveryPending, HeldBack: 2, KeepClaim: true}
	})
	if c := countDeliveries(t, s); c[DeliveryPending] != 2 {
		t.Fatalf("counts = %v: a step of another owner was written", c)
	}
	if again := mustClaim(t, s, "third", t0.Add(time.Second), 0); len(again) != 0 {
		t.Fatalf("claimed while the claims (one kept by a step) last: %+v", again)
	}
	stepAll(t, s, ds, func(d Delivery) DeliveryStep {
		return DeliveryStep{EventID: d.EventID, Channel: d.Channel, To: DeliveryPending, Attempt: true, Error: "503", NextAt: next, Owner: "me"}
	})
	ds = mustClaim(t, s, "me", next, 2)
	if ds[0].Attempts != 1 || ds[0].LastError != "503" || ds[1].HeldBack != 2 || !ds[0].DoneAt.IsZero() {
		t.Errorf("after a failed attempt: %+v", ds)
	}
	stepAll(t, s, ds, func(d Delivery) DeliveryStep { return delivered(d, next) })
	stepAll(t, s, ds, func(d Delivery) DeliveryStep {
		return DeliveryStep{EventID: d.EventID, Channel: d.Channel, To: DeliveryFailed, DoneAt: next}
	})
	all, err := s.Deliveries(ctxb, 10)
	if err != nil || len(all) != 2 {
		t.Fatalf("deliveries = %+v, %v", all, err)
	}
	for _, d := range all {
		if d.State != DeliveryDelivered || d.Attempts != 2 || d.LastError != "" || !d.DoneAt.Equal(next) || !d.LastSent.Equal(next) {
			t.Errorf("delivered, then a step from pending: %+v", d)
		}
	}
}
