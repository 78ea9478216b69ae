package runtrace

import (
	"encoding/json"
	"testing"
	"time"
)

func TestReap(t *testing.T) {
	s := newStore(t)
	now := t0.Add(time.Hour)
	begin := func(job string, started time.Time) int64 {
		id, err := s.Begin(ctxb, job, TriggerSchedule, time.Time{}, started)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	old := begin("job:quick", now.Add(-10*time.Minute))         // timeout 1m: abandoned
	young := begin("job:quick", now.Add(-30*time.Second))       // under the 60 s floor: kept
	slow := begin("job:slow", now.Add(-10*time.Minute))         // timeout 1h: still in time
	skipped := begin("watchdog:mine", now.Add(-10*time.Hour))   // Skip: this process runs it
	noTimeout := begin("job:unknown", now.Add(-90*time.Second)) // no timeout: the 60 s floor
	done := mustRecord(t, s, Run{JobID: "job:quick", StartedAt: now.Add(-time.Hour), Outcome: OutcomeOK, Reason: ReasonCompleted})

	timeouts := map[string]time.Duration{"job:quick": time.Minute, "job:slow": time.Hour}
	n, err := s.Reap(ctxb, ReapPolicy{
		Now:     now,
		Timeout: func(job string) time.Duration { return timeouts[job] },
		Skip:    func(job string) bool { return job == "watchdog:mine" },
	})
	if err != nil || n != 2 {
		t.Fatalf("Reap = %d, %v; want 2", n, err)
	}
	for _, id := range []int64{old, noTimeout} {
		r := getRun(t, s, id)
		var d map[string]any
		if r.Outcome != OutcomeFailed || r.Reason != ReasonAbandoned || !r.FinishedAt.Equal(now) ||
			json.Unmarshal(r.Detail, &d) != nil || d["why"] == nil {
			t.Errorf("run %d not abandoned properly: %+v %s", id, r, r.Detail)
		}
	}
	for _, id := range []int64{young, slow, skipped} {
		if r := getRun(t, s, id); r.Outcome != OutcomeRunning {
			t.Errorf("run %d (%s) should still be running: %+v", id, r.JobID, r)
		}
	}
	if r := getRun(t, s, done); r.Outcome != OutcomeOK {
		t.Errorf("finished run touched: %+v", r)
	}
	if n, err := s.Reap(ctxb, ReapPolicy{Now: now, Timeout: func(string) time.Duration { return time.Hour },
		Skip: func(j string) bool { return j == "watchdog:mine" }}); err != nil || n != 0 {
		t.Fatalf("second Reap = %d, %v; want 0", n, err)
	}
}

func TestPruneInBatches(t *testing.T) {
	s := newStore(t)
	cutoff := t0.Add(-24 * time.Hour)
	const old, fresh = 12000, 150
	bulkInsert(t, s, "job:old", cutoff.Add(-old*time.Minute), old) // the last one starts 1 min before cutoff
	bulkInsert(t, s, "job:new", cutoff, fresh)                     // the first one starts at cutoff: kept

	var batches []int64
	pruneHook = func(n int64) { batches = append(batches, n) }
	defer func() { pruneHook = nil }()

	n, err := s.Prune(ctxb, cutoff)
	if err != nil || n != old {
		t.Fatalf("Prune = %d, %v; want %d", n, err, old)
	}
	var sum int64
	for _, b := range batches {
		if b > PruneBatch {
			t.Errorf("one DELETE removed %d rows, more than %d", b, PruneBatch)
		}
		sum += b
	}
	if len(batches) < old/PruneBatch+1 || sum != old {
		t.Errorf("batches %v: want at least %d summing to %d", batches, old/PruneBatch+1, old)
	}
	if c, _ := s.Count(ctxb, Filter{JobID: "job:old"}); c != 0 {
		t.Errorf("%d old rows left", c)
	}
	if c, _ := s.Count(ctxb, Filter{JobID: "job:new"}); c != fresh {
		t.Errorf("new rows: %d, want %d", c, fresh)
	}
}

func TestIntegrityCheckPassesOnHealthyFile(t *testing.T) {
	s := newStore(t)
	bulkInsert(t, s, "job:a", t0, 100)
	if err := s.IntegrityCheck(ctxb); err != nil {
		t.Fatal(err)
	}
}
