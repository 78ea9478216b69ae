package runtrace

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBeginFinish(t *testing.T) {
	s := newStore(t)
	slot := t0.Add(-30 * time.Second)
	id, err := s.Begin(ctxb, "job:pull", TriggerSchedule, slot, t0)
	if err != nil {
		t.Fatal(err)
	}
	r := getRun(t, s, id)
	if r.Outcome != OutcomeRunning || r.Reason != "" || !r.FinishedAt.IsZero() || !r.ScheduledAt.Equal(slot) {
		t.Fatalf("after Begin: %+v", r)
	}
	done := t0.Add(1500 * time.Millisecond)
	if err := s.Finish(ctxb, id, OutcomeFailed, ReasonExitNonzero, map[string]int{"exit_code": 3}, done); err != nil {
		t.Fatal(err)
	}
	r = getRun(t, s, id)
	if r.Outcome != OutcomeFailed || r.Reason != ReasonExitNonzero || !r.FinishedAt.Equal(done) ||
		r.Duration != 1500*time.Millisecond || string(r.Detail) != `{"exit_code":3}` {
		t.Fatalf("after Finish: %+v detail %s", r, r.Detail)
	}
	if r.StartedAt.Location() != time.UTC {
		t.Fatalf("times must come back in UTC, got %v", r.StartedAt.Location())
	}
}

func TestBeginRejectsBadInput(t *testing.T) {
	s := newStore(t)
	if _, err := s.Begin(ctxb, "job:a", "cron", time.Time{}, t0); !errors.Is(err, ErrBadTrigger) {
		t.Errorf("unknown trigger: %v, want ErrBadTrigger", err)
	}
	if _, err := s.Begin(ctxb, "", TriggerManual, time.Time{}, t0); err == nil {
		t.Error("empty job id accepted")
	}
	if _, err := s.Begin(ctxb, "job:a", TriggerManual, time.Time{}, time.Time{}); err == nil {
		t.Error("zero start time accepted")
	}
	if n, _ := s.Count(ctxb, Filter{}); n != 0 {
		t.Fatalf("%d rows written by rejected Begins", n)
	}
}

func TestFinishRejectsUnknownReason(t *testing.T) {
	s := newStore(t)
	id, err := s.Begin(ctxb, "job:a", TriggerManual, time.Time{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o Outcome
		r Reason
	}{
		{OutcomeFailed, "flaky"}, {OutcomeFailed, ""}, {OutcomeSkipped, ReasonCompleted},
		{OutcomeOK, ""}, {OutcomeRunning, ""}, {"done", ReasonCompleted},
	} {
		if err := s.Finish(ctxb, id, c.o, c.r, nil, t0); !errors.Is(err, ErrBadReason) {
			t.Errorf("Finish(%s/%s) = %v, want ErrBadReason", c.o, c.r, err)
		}
	}
	if r := getRun(t, s, id); r.Outcome != OutcomeRunning {
		t.Fatalf("a rejected Finish wrote: %+v", r)
	}
}

func TestLateFinishKeepsVerdict(t *testing.T) {
	s := newStore(t)
	id, err := s.Begin(ctxb, "job:a", TriggerSchedule, t0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Reap(ctxb, ReapPolicy{Now: t0.Add(time.Hour)}); err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want 1", n, err)
	}
	err = s.Finish(ctxb, id, OutcomeOK, ReasonCompleted, nil, t0.Add(2*time.Hour))
	if !errors.Is(err, ErrAlreadyFinished) {
		t.Fatalf("late Finish = %v, want ErrAlreadyFinished", err)
	}
	if !strings.Contains(err.Error(), "failed/abandoned") {
		t.Errorf("error should say what was kept: %v", err)
	}
	if r := getRun(t, s, id); r.Outcome != OutcomeFailed || r.Reason != ReasonAbandoned {
		t.Fatalf("late Finish overwrote the verdict: %+v", r)
	}
	// A duplicate finish of a finished run is refused the same way.
	id2 := mustRecord(t, s, Run{JobID: "job:a", StartedAt: t0, Outcome: OutcomeSkipped, Reason: ReasonOverlap})
	if err := s.Finish(ctxb, id2, OutcomeOK, ReasonCompleted, nil, t0); !errors.Is(err, ErrAlreadyFinished) {
		t.Fatalf("duplicate Finish = %v, want ErrAlreadyFinished", err)
	}
	if err := s.Finish(ctxb, 999999, OutcomeOK, ReasonCompleted, nil, t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Finish of an unknown id = %v, want ErrNotFound", err)
	}
}

// The CHECK constraints hold even for writers that skip the Go validation
// (another version, a person with sqlite3).
func TestCheckConstraints(t *testing.T) {
	s := newStore(t)
	insert := `INSERT INTO run_trace (job_id, trigger, started_at, outcome, reason) VALUES ('job:a', 'manual', 1, ?, ?)`
	for _, c := range []struct {
		outcome string
		reason  any
		ok      bool
	}{
		{"skipped", nil, false}, {"skipped", "", false}, {"failed", nil, false}, {"failed", "", false},
		{"bogus", "x", false}, {"running", nil, true}, {"ok", nil, true},
		{"failed", "abandoned", true}, {"skipped", "overlap", true},
	} {
		_, err := s.w.Exec(insert, c.outcome, c.reason)
		if (err == nil) != c.ok {
			t.Errorf("insert outcome=%q reason=%v: err=%v, want ok=%v", c.outcome, c.reason, err, c.ok)
		}
	}
}

func TestRecord(t *testing.T) {
	s := newStore(t)
	id := mustRecord(t, s, Run{ID: 77, JobID: "job:a", Trigger: TriggerSchedule, ScheduledAt: t0, StartedAt: t0,
		Outcome: OutcomeSkipped, Reason: ReasonOverlap, Detail: json.RawMessage(`{ "running_id": 5 }`)})
	r := getRun(t, s, id)
	if r.Outcome != OutcomeSkipped || r.Reason != ReasonOverlap || !r.FinishedAt.Equal(t0) || r.Duration != 0 ||
		string(r.Detail) != `{"running_id":5}` {
		t.Fatalf("recorded: %+v detail %s", r, r.Detail)
	}
	if _, err := s.Record(ctxb, Run{JobID: "job:a", Trigger: TriggerSchedule, StartedAt: t0,
		Outcome: OutcomeRunning}); !errors.Is(err, ErrBadReason) {
		t.Fatalf("Record of a running row = %v, want ErrBadReason", err)
	}
}

func TestDetailCapped(t *testing.T) {
	s := newStore(t)
	cases := map[string]any{
		"ascii":     map[string]string{"log_tail": strings.Repeat("x", 20000)},
		"escaping":  map[string]string{"log_tail": strings.Repeat(`<"é\`+"\n", 5000)},
		"raw array": json.RawMessage("[" + strings.Repeat(`"ab",`, 4000) + `"z"]`),
	}
	for name, d := range cases {
		id, err := s.Begin(ctxb, "job:"+name, TriggerManual, time.Time{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctxb, id, OutcomeFailed, ReasonPanic, d, t0); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := getRun(t, s, id)
		var tr truncated
		if len(r.Detail) > MaxDetail || json.Unmarshal(r.Detail, &tr) != nil || !tr.Truncated ||
			tr.OriginalBytes <= MaxDetail || len(tr.Head) < MaxDetail/3 {
			t.Errorf("%s: stored %d bytes, want valid truncated JSON <= %d: %.120s", name, len(r.Detail), MaxDetail, r.Detail)
		}
	}
	if err := s.Finish(ctxb, 1, OutcomeFailed, ReasonPanic, json.RawMessage(`{"a":`), t0); err == nil {
		t.Error("invalid JSON detail accepted")
	}
}

func TestRunJSON(t *testing.T) {
	running := Run{ID: 1, JobID: "job:a", Trigger: TriggerSchedule, StartedAt: t0.In(time.FixedZone("X", 8*3600)),
		Outcome: OutcomeRunning}
	b, err := json.Marshal(running)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"job_id":"job:a","trigger":"schedule","scheduled_at":null,"started_at":"2026-03-01T12:00:00Z",` +
		`"finished_at":null,"outcome":"running","duration_ms":null}`
	if string(b) != want {
		t.Fatalf("running run JSON\n got %s\nwant %s", b, want)
	}
	done := Run{ID: 2, JobID: "job:a", Trigger: TriggerCatchUp, ScheduledAt: t0, StartedAt: t0.Add(time.Second),
		FinishedAt: t0.Add(2500 * time.Millisecond), Outcome: OutcomeFailed, Reason: ReasonTimeout,
		Duration: 1500 * time.Millisecond, Detail: json.RawMessage(`{"pid":9}`)}
	b, err = json.Marshal(done)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"finished_at":"2026-03-01T12:00:02.5Z"`) || !strings.Contains(string(b), `"duration_ms":1500`) {
		t.Fatalf("finished run JSON: %s", b)
	}
	var back Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != done.ID || !back.FinishedAt.Equal(done.FinishedAt) || !back.ScheduledAt.Equal(done.ScheduledAt) ||
		back.Duration != done.Duration || string(back.Detail) != string(done.Detail) || back.Reason != done.Reason {
		t.Fatalf("round trip: got %+v want %+v", back, done)
	}
}
