package runtrace

import (
	"errors"
	"testing"
	"time"
)

// TestWritesAfterCloseAreRefused: once Close has spilled what waited, every
// write is refused with ErrQueueClosed and reaches neither the queue nor the
// database. A heartbeat is no exception: nothing would ever write a beat
// queued after Close, and a beat written after the clean stop's delete
// would bring back the row that stop removed (the next agent would read a
// stopped agent as alive).
func TestWritesAfterCloseAreRefused(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{})
	hb := Heartbeat{InstanceID: "i1", PID: 1, Version: "t", StartedAt: t0, BeatAt: t0.Add(time.Minute), Mode: ModeForeground, Hostname: "h"}
	if err := s.Beat(ctxb, hb); err != nil {
		t.Fatal(err)
	}
	id, err := s.Begin(ctxb, "job:a", TriggerSchedule, t0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if res := q.Close(ctxb); res.Err != nil || res.Rows != 0 {
		t.Fatalf("close = %+v", res)
	}
	done := Run{JobID: "job:a", Trigger: TriggerSchedule, StartedAt: t0, FinishedAt: t0.Add(time.Second), Outcome: OutcomeOK, Reason: ReasonCompleted}
	writes := map[string]func() error{
		"Begin": func() error {
			_, err := q.Begin(ctxb, "job:a", TriggerSchedule, t0, t0)
			return err
		},
		"Finish": func() error {
			return q.Finish(ctxb, id, OutcomeOK, ReasonCompleted, nil, t0.Add(time.Second))
		},
		"Note":   func() error { return q.Note(ctxb, id, map[string]int{"n": 1}) },
		"Record": func() error { _, err := q.Record(ctxb, done); return err },
		"RecordLazy": func() error {
			_, err := q.RecordLazy(ctxb, done)
			return err
		},
		"Emit": func() error {
			_, err := q.Emit(ctxb, nil, map[string]Mark{"k": {Value: "v", At: t0}})
			return err
		},
		"Beat": func() error {
			b := hb
			b.BeatAt = t0.Add(time.Hour)
			return q.Beat(ctxb, b)
		},
		"DeleteHeartbeat": func() error { return q.DeleteHeartbeat(ctxb, "i1") },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrQueueClosed) {
			t.Errorf("%s after Close: err = %v, want ErrQueueClosed", name, err)
		}
	}
	if h := q.Health(); h.Pending != 0 || h.PendingEvents != 0 || q.waiting() {
		t.Errorf("after refused writes: health %+v, waiting %v", h, q.waiting())
	}
	if rs := allRuns(t, s); len(rs) != 1 || rs[0].Outcome != OutcomeRunning {
		t.Errorf("runs = %+v, want the one running row untouched", rs)
	}
	if m, err := s.GetMark(ctxb, "k"); err != nil || m != (Mark{}) {
		t.Errorf("mark = %+v, %v: want none", m, err)
	}
	hbs, err := s.Heartbeats(ctxb)
	if err != nil || len(hbs) != 1 || !hbs[0].BeatAt.Equal(hb.BeatAt) {
		t.Errorf("heartbeats = %+v, %v: want the one row as it was before Close", hbs, err)
	}
}
