package runtrace

import (
	"sync"
	"testing"
	"time"
)

// A lazy row is committed like any other, and the writer connection goes
// back to synchronous=FULL for every commit after it.
func TestRecordLazyCommitsAndRestoresFullSync(t *testing.T) {
	s := newStore(t)
	id, err := s.RecordLazy(ctxb, Run{JobID: "watchdog:web", Trigger: TriggerSchedule, StartedAt: t0,
		FinishedAt: t0.Add(time.Millisecond), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning})
	if err != nil {
		t.Fatal(err)
	}
	if r := getRun(t, s, id); r.Outcome != OutcomeOK || r.Reason != ReasonAlreadyRunning {
		t.Fatalf("lazy row read back as %+v", r)
	}
	var sync int
	if err := s.w.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("writer synchronous = %d, %v after a lazy commit; want 2 (FULL)", sync, err)
	}
	if _, err := (&Store{path: s.path}).RecordLazy(ctxb, Run{}); err == nil {
		t.Fatal("RecordLazy on a store without a writer succeeded")
	}
}

// Lazy and durable writes from many goroutines share the one writer
// connection without a deadlock, and every row lands.
func TestRecordLazyBesideDurableWrites(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				r := Run{JobID: "watchdog:web", Trigger: TriggerSchedule, StartedAt: t0.Add(time.Duration(g*100+i) * time.Second),
					Outcome: OutcomeOK, Reason: ReasonAlreadyRunning}
				rec := s.Record
				if (g+i)%2 == 0 {
					rec = s.RecordLazy
				}
				if _, err := rec(ctxb, r); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	runs, err := s.Runs(ctxb, Filter{JobID: "watchdog:web"})
	if err != nil || len(runs) != 100 {
		t.Fatalf("%d rows, %v; want 100", len(runs), err)
	}
	var sync int
	if err := s.w.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil || sync != 2 {
		t.Fatalf("writer synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
}

// A lazy record whose verdict raises an event is written durably with the
// event; one that raises nothing is written lazily, with no event.
func TestRecordLazyEmitFallsBackToDurableForEvents(t *testing.T) {
	s := newStore(t)
	calls := 0
	emit := downEmitter(&calls)
	ok := Run{JobID: "watchdog:proxy", Trigger: TriggerSchedule, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonAlreadyRunning}
	id, err := s.RecordLazyEmit(ctxb, ok, emit)
	if err != nil || getRun(t, s, id).Outcome != OutcomeOK {
		t.Fatalf("quiet verdict: id %d, %v", id, err)
	}
	if c := countDeliveries(t, s); len(c) != 0 {
		t.Fatalf("a quiet verdict queued deliveries: %v", c)
	}
	bad := Run{JobID: "watchdog:proxy", Trigger: TriggerSchedule, StartedAt: t0.Add(time.Second), Outcome: OutcomeFailed, Reason: ReasonStartFailed}
	id, err = s.RecordLazyEmit(ctxb, bad, emit)
	if err != nil || getRun(t, s, id).Outcome != OutcomeFailed {
		t.Fatalf("loud verdict: id %d, %v", id, err)
	}
	if c := countDeliveries(t, s); c[DeliveryPending] != 2 {
		t.Fatalf("deliveries %v, want the event's two pending", c)
	}
	if m, _ := s.GetMark(ctxb, SubjectMarkKey("watchdog:proxy")); m.Value != "down" {
		t.Fatalf("mark %+v, want down", m)
	}
	runs, _ := s.Runs(ctxb, Filter{JobID: "watchdog:proxy"})
	if len(runs) != 2 {
		t.Fatalf("%d rows, want 2 (the rolled-back lazy attempt leaves none)", len(runs))
	}
}
