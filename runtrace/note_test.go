package runtrace

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Note sets a running row's detail; Finish replaces it; a finished row
// keeps its verdict's detail and Note says so.
func TestNoteSetsRunningDetail(t *testing.T) {
	s := newStore(t)
	id, err := s.Begin(ctxb, "job:pull", TriggerSchedule, t0, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Note(ctxb, id, map[string]any{"process": map[string]any{"pid": 42}}); err != nil {
		t.Fatal(err)
	}
	if r := getRun(t, s, id); r.Outcome != OutcomeRunning || string(r.Detail) != `{"process":{"pid":42}}` {
		t.Fatalf("row = %s %s", r.Verdict(), r.Detail)
	}
	if err := s.Finish(ctxb, id, OutcomeOK, ReasonCompleted, map[string]int{"exit_code": 0}, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Note(ctxb, id, map[string]int{"pid": 7}); !errors.Is(err, ErrAlreadyFinished) {
		t.Errorf("Note on a finished row = %v, want ErrAlreadyFinished", err)
	}
	if r := getRun(t, s, id); string(r.Detail) != `{"exit_code":0}` {
		t.Errorf("finished row's detail = %s", r.Detail)
	}
	if err := s.Note(ctxb, 999, map[string]int{"pid": 7}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Note on an unknown row = %v, want ErrNotFound", err)
	}
}

// While writes fail, a note waits with its row: a begin still queued takes
// it along; a note of a written row waits behind what is queued, and both
// survive a spill into the next agent's ledger, so the reaper finds them.
func TestQueueNoteWaitsAndSpills(t *testing.T) {
	path := dbPath(t)
	spill := filepath.Join(t.TempDir(), "spill")
	s := openT(t, path)
	q, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{spill}})
	written, err := q.Begin(ctxb, "job:a", TriggerSchedule, t0, t0)
	if err != nil || written <= 0 {
		t.Fatalf("Begin = %d, %v", written, err)
	}
	refuseWrites(t, s, true)
	prov, _ := q.Begin(ctxb, "job:b", TriggerSchedule, t0, t0.Add(time.Second))
	if err := q.Note(ctxb, prov, map[string]int{"pid": 2}); err != nil {
		t.Fatal(err)
	}
	if err := q.Note(ctxb, written, map[string]int{"pid": 1}); err != nil {
		t.Fatal(err)
	}
	if err := q.Note(ctxb, -999, map[string]int{"pid": 3}); !errors.Is(err, ErrNotFound) {
		t.Errorf("Note of a provisional id never handed out = %v", err)
	}
	res := q.Close(ctxb)
	if res.SpillPath == "" || res.Err != nil {
		t.Fatalf("Close = %+v", res)
	}
	s.Close()

	s2 := openT(t, path)
	q2, _ := newQueue(t, s2, QueueOptions{SpillDirs: []string{spill}})
	if _, err := q2.ImportSpills(); err != nil {
		t.Fatal(err)
	}
	if !q2.Flush(ctxb) {
		t.Fatalf("flush: %+v", q2.Health())
	}
	rs := allRuns(t, s2)
	if len(rs) != 2 || rs[0].Outcome != OutcomeRunning || string(rs[0].Detail) != `{"pid":1}` ||
		rs[1].Outcome != OutcomeRunning || string(rs[1].Detail) != `{"pid":2}` {
		t.Fatalf("rows = %+v", rs)
	}
}

// A gone writer's row that noted what it started is shown to Orphan before
// it is finished, and Orphan's words join its detail; a row with no note,
// and a row judged by the timeout rule, are not shown to it.
func TestReapShowsOrphanNotedRows(t *testing.T) {
	s := newStore(t)
	now := t0.Add(time.Hour)
	gone, err := Open(s.Path(), Options{Instance: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	noted, _ := gone.Begin(ctxb, "job:a", TriggerSchedule, time.Time{}, now.Add(-time.Second))
	if err := gone.Note(ctxb, noted, map[string]any{"process": map[string]int{"pid": 42}}); err != nil {
		t.Fatal(err)
	}
	bare, _ := gone.Begin(ctxb, "job:b", TriggerSchedule, time.Time{}, now.Add(-time.Second))
	old, _ := s.Begin(ctxb, "job:c", TriggerSchedule, time.Time{}, now.Add(-2*time.Hour)) // no writer: the timeout rule
	if err := s.Note(ctxb, old, map[string]int{"pid": 9}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	n, err := s.Reap(ctxb, ReapPolicy{Now: now, Self: "me", Orphan: func(job string, d json.RawMessage, why map[string]any) {
		seen = append(seen, job+" "+string(d))
		why["orphan"] = "killed the orphaned run (pid 42)"
	}})
	if err != nil || n != 3 {
		t.Fatalf("Reap = %d, %v; want 3", n, err)
	}
	if len(seen) != 1 || seen[0] != `job:a {"process":{"pid":42}}` {
		t.Errorf("Orphan saw %q, want only job:a's note", seen)
	}
	r := getRun(t, s, noted)
	if r.Reason != ReasonAbandoned || !strings.Contains(string(r.Detail), "killed the orphaned run (pid 42)") ||
		!strings.Contains(string(r.Detail), `"instance":"gone"`) {
		t.Errorf("noted row = %s %s", r.Verdict(), r.Detail)
	}
	for _, id := range []int64{bare, old} {
		if r := getRun(t, s, id); r.Reason != ReasonAbandoned || strings.Contains(string(r.Detail), "orphan") {
			t.Errorf("row %d = %s %s", id, r.Verdict(), r.Detail)
		}
	}
}

// TestQueueNoteBehindABeginBeingWritten: a note that arrives while its
// begin is being written waits behind it under the provisional id, and
// Flush finds the row the begin got (it resolves every waiting reference
// when it writes it: nothing re-points the notes).
func TestQueueNoteBehindABeginBeingWritten(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{})
	refuseWrites(t, s, true)
	prov, err := q.Begin(ctxb, "job:a", TriggerSchedule, t0, t0)
	if err != nil || prov >= 0 {
		t.Fatalf("Begin = %d, %v; want a provisional id", prov, err)
	}
	q.mu.Lock()
	q.begun[prov].inflight = true
	q.mu.Unlock()
	if err := q.Note(ctxb, prov, map[string]int{"pid": 7}); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	q.begun[prov].inflight = false
	waiting := len(q.ops)
	q.mu.Unlock()
	if waiting != 2 {
		t.Fatalf("%d writes wait, want the begin and its note", waiting)
	}
	refuseWrites(t, s, false)
	if !q.Flush(ctxb) {
		t.Fatal("flush failed")
	}
	rs := allRuns(t, s)
	if len(rs) != 1 || rs[0].Outcome != OutcomeRunning || string(rs[0].Detail) != `{"pid":7}` {
		t.Fatalf("runs = %+v, want the running row with its note", rs)
	}
}
