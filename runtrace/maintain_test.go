package runtrace

import (
	"encoding/json"
	"strings"
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

// A run whose writer instance is gone — its heartbeat deleted, or older than
// Stale — is abandoned at once, however young; a live writer's runs and runs
// with no writer (a CLI's) wait for their timeout.
func TestReapGoneInstanceAtOnce(t *testing.T) {
	s := newStore(t)
	now := t0.Add(time.Hour)
	as := func(inst string) *Store {
		o, err := Open(s.Path(), Options{Instance: inst})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Close() })
		return o
	}
	begin := func(st *Store, job string) int64 {
		id, err := st.Begin(ctxb, job, TriggerSchedule, time.Time{}, now.Add(-time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	beat := func(inst string, at time.Time) {
		if err := s.Beat(ctxb, Heartbeat{InstanceID: inst, PID: 1, Version: "t", StartedAt: at, BeatAt: at, Mode: ModeService, Hostname: "h"}); err != nil {
			t.Fatal(err)
		}
	}
	beat("alive", now.Add(-10*time.Second))
	beat("stale", now.Add(-5*time.Minute))
	beat("me", now.Add(-time.Hour)) // our own beat failing is no proof that we are gone
	deleted := begin(as("deleted"), "job:a")
	stale := begin(as("stale"), "watchdog:web")
	alive := begin(as("alive"), "job:a")
	mine := begin(as("me"), "job:a")
	cli := begin(s, "job:a")
	skipped := begin(as("deleted"), "job:paused") // Skip is for the timeout rule only

	n, err := s.Reap(ctxb, ReapPolicy{Now: now, Self: "me", Stale: 90 * time.Second,
		Skip: func(j string) bool { return j == "job:paused" }})
	if err != nil || n != 3 {
		t.Fatalf("Reap = %d, %v; want 3", n, err)
	}
	for id, want := range map[int64]string{deleted: "no heartbeat any more", stale: "older than 1m30s", skipped: "no heartbeat any more"} {
		r := getRun(t, s, id)
		if r.Reason != ReasonAbandoned || !strings.Contains(string(r.Detail), want) {
			t.Errorf("run %d: %s %s; want abandoned saying %q", id, r.Verdict(), r.Detail, want)
		}
	}
	for _, id := range []int64{alive, mine, cli} {
		if r := getRun(t, s, id); r.Outcome != OutcomeRunning {
			t.Errorf("run %d reaped: %+v %s", id, r, r.Detail)
		}
	}
}

// Reap pages through the running rows in bounded transactions and still
// reaches every one, keeping the live ones between.
func TestReapInBatches(t *testing.T) {
	s := newStore(t)
	gone, err := Open(s.Path(), Options{Instance: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	now := t0.Add(time.Hour)
	var kept []int64
	for i := range 250 {
		if _, err := gone.Begin(ctxb, "job:a", TriggerSchedule, time.Time{}, now); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			id, _ := s.Begin(ctxb, "job:b", TriggerSchedule, time.Time{}, now)
			kept = append(kept, id)
		}
	}
	n, err := s.Reap(ctxb, ReapPolicy{Now: now, Self: "me", Batch: 7})
	if err != nil || n != 250 {
		t.Fatalf("Reap = %d, %v; want 250", n, err)
	}
	for _, id := range kept {
		if r := getRun(t, s, id); r.Outcome != OutcomeRunning {
			t.Errorf("run %d reaped: %+v", id, r)
		}
	}
}

// A ledger of schema v3 gets run_trace.instance_id; its running rows have
// no writer named, so the reaper judges them by their timeout, as before.
func TestMigrateV3AddsInstance(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	id, err := s.Begin(ctxb, "job:a", TriggerSchedule, time.Time{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw := rawDB(t, path)
	downgrade(t, raw, 3)
	raw.Close()
	s = openT(t, path)
	if st := schemaOf(t, s); st.version != schemaVersion {
		t.Fatalf("after migration: %+v", st)
	}
	if n, err := s.Reap(ctxb, ReapPolicy{Now: t0.Add(30 * time.Second), Self: "me", Stale: time.Second}); err != nil || n != 0 {
		t.Fatalf("Reap before the timeout = %d, %v; want 0 (no writer named: not provably gone)", n, err)
	}
	if n, err := s.Reap(ctxb, ReapPolicy{Now: t0.Add(2 * MinReapAge), Self: "me"}); err != nil || n != 1 {
		t.Fatalf("Reap after the timeout = %d, %v; want 1", n, err)
	}
	if r := getRun(t, s, id); r.Reason != ReasonAbandoned {
		t.Fatalf("run %+v", r)
	}
}
