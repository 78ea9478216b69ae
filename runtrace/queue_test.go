package runtrace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// refuseWrites makes the store's one writer connection refuse every write
// (SQLITE_READONLY, as a database file the agent may no longer write), or
// take them again: the real failure path of a real file, switched at will.
func refuseWrites(t *testing.T, s *Store, refuse bool) {
	t.Helper()
	v := "OFF"
	if refuse {
		v = "ON"
	}
	if _, err := s.w.Exec("PRAGMA query_only = " + v); err != nil {
		t.Fatal(err)
	}
}

type changes struct {
	mu sync.Mutex
	hs []Health
}

func (c *changes) add(h Health) { c.mu.Lock(); c.hs = append(c.hs, h); c.mu.Unlock() }
func (c *changes) list() []Health {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Health(nil), c.hs...)
}

func newQueue(t *testing.T, s *Store, o QueueOptions) (*Queue, *changes) {
	t.Helper()
	c := &changes{}
	o.OnChange = c.add
	if o.SpillDirs == nil {
		o.SpillDirs = []string{filepath.Join(t.TempDir(), "spill")}
	}
	return NewQueue(s, o), c
}

func allRuns(t *testing.T, s *Store) []Run {
	t.Helper()
	rs, err := s.Runs(ctxb, Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// oldest first: the order they were written in
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs
}

// TestQueueKeepsRowsWhileWritesFail: every row of the outage is written once
// writes work again, in order, with its own times and its true verdict; a
// row begun and finished during the outage is one finished row.
func TestQueueKeepsRowsWhileWritesFail(t *testing.T) {
	s := newStore(t)
	q, ch := newQueue(t, s, QueueOptions{})
	before, err := q.Begin(ctxb, "watchdog:web", TriggerSchedule, time.Time{}, t0)
	if err != nil || before <= 0 {
		t.Fatalf("Begin while up = %d, %v", before, err)
	}
	refuseWrites(t, s, true)

	// the verdict of a row begun before the outage
	if err := q.Finish(ctxb, before, OutcomeOK, ReasonAlreadyRunning, nil, t0.Add(time.Second)); err != nil {
		t.Fatalf("Finish during the outage: %v", err)
	}
	h := q.Health()
	if h.Up || h.Cause != CausePermission || h.Pending != 1 || h.Since.IsZero() || h.Dir != filepath.Dir(s.Path()) {
		t.Fatalf("health after the first failure = %+v", h)
	}
	// a restart begun and finished during the outage
	prov, err := q.Begin(ctxb, "watchdog:web", TriggerEvent, time.Time{}, t0.Add(10*time.Second))
	if err != nil || prov >= 0 {
		t.Fatalf("Begin during the outage = %d, %v; want a provisional (negative) id", prov, err)
	}
	if err := q.Finish(ctxb, prov, OutcomeOK, ReasonStarted, map[string]int{"pid": 42}, t0.Add(12*time.Second)); err != nil {
		t.Fatal(err)
	}
	// a skip recorded in one go
	if _, err := q.Record(ctxb, Run{JobID: "job:pull", Trigger: TriggerSchedule, StartedAt: t0.Add(20 * time.Second),
		Outcome: OutcomeSkipped, Reason: ReasonPaused}); err != nil {
		t.Fatal(err)
	}
	if n := len(allRuns(t, s)); n != 1 {
		t.Fatalf("%d rows in the ledger during the outage, want the 1 begun before it", n)
	}
	if h := q.Health(); h.Pending != 3 {
		t.Fatalf("pending = %d, want 3", h.Pending)
	}
	if q.Flush(ctxb) {
		t.Fatal("Flush succeeded while writes are refused")
	}

	refuseWrites(t, s, false)
	if !q.Flush(ctxb) {
		t.Fatalf("Flush failed after writes work again: %+v", q.Health())
	}
	rs := allRuns(t, s)
	want := []struct {
		verdict  string
		trigger  Trigger
		started  time.Duration
		finished time.Duration
	}{
		{"ok/already-running", TriggerSchedule, 0, time.Second},
		{"ok/started", TriggerEvent, 10 * time.Second, 12 * time.Second},
		{"skipped/paused", TriggerSchedule, 20 * time.Second, 20 * time.Second},
	}
	if len(rs) != len(want) {
		t.Fatalf("rows = %+v, want %d", rs, len(want))
	}
	for i, w := range want {
		r := rs[i]
		if r.Verdict() != w.verdict || r.Trigger != w.trigger || !r.StartedAt.Equal(t0.Add(w.started)) || !r.FinishedAt.Equal(t0.Add(w.finished)) {
			t.Errorf("row %d = %s %s %s..%s, want %s %s at +%s..+%s", i, r.Verdict(), r.Trigger, r.StartedAt, r.FinishedAt,
				w.verdict, w.trigger, w.started, w.finished)
		}
	}
	if string(rs[1].Detail) != `{"pid":42}` || rs[1].Duration != 2*time.Second {
		t.Errorf("restart row detail %s duration %s", rs[1].Detail, rs[1].Duration)
	}
	h = q.Health()
	if !h.Up || h.Pending != 0 || h.WrittenLate != 3 || h.Lost != 0 || h.RecoveredAt.IsZero() {
		t.Errorf("health after recovery = %+v", h)
	}
	cs := ch.list()
	if len(cs) != 2 || cs[0].Up || !cs[1].Up || cs[1].WrittenLate != 3 {
		t.Errorf("OnChange calls = %+v, want one down and one up (3 written late)", cs)
	}
}

// TestQueueFinishFindsRowWrittenLate: a row begun during the outage and
// written (as running) before its run ends gets its verdict by the
// provisional id its writer holds.
func TestQueueFinishFindsRowWrittenLate(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{})
	refuseWrites(t, s, true)
	prov, err := q.Begin(ctxb, "job:pull", TriggerSchedule, t0, t0)
	if err != nil || prov >= 0 {
		t.Fatalf("Begin = %d, %v", prov, err)
	}
	refuseWrites(t, s, false)
	if !q.Flush(ctxb) {
		t.Fatal("flush failed")
	}
	rs := allRuns(t, s)
	if len(rs) != 1 || rs[0].Outcome != OutcomeRunning || !rs[0].ScheduledAt.Equal(t0) {
		t.Fatalf("rows = %+v, want one running row for the slot", rs)
	}
	if err := q.Finish(ctxb, prov, OutcomeFailed, ReasonExitNonzero, map[string]int{"exit_code": 2}, t0.Add(time.Minute)); err != nil {
		t.Fatalf("Finish by provisional id: %v", err)
	}
	if r := getRun(t, s, rs[0].ID); r.Verdict() != "failed/exit-nonzero" || !r.FinishedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("row = %+v", r)
	}
	// the provisional id is spent: a second finish is refused, not misdirected
	if err := q.Finish(ctxb, prov, OutcomeOK, ReasonCompleted, nil, t0.Add(2*time.Minute)); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Finish by the spent provisional id = %v, want ErrNotFound", err)
	}
}

// TestQueueKeepsWritingInOrder: while something waits, even a write that
// would succeed joins the queue behind it.
func TestQueueKeepsWritingInOrder(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{})
	refuseWrites(t, s, true)
	q.Record(ctxb, Run{JobID: "agent", Trigger: TriggerStartup, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonStarted})
	refuseWrites(t, s, false)
	// the retry loop has not run yet: this one must wait its turn
	q.Record(ctxb, Run{JobID: "agent", Trigger: TriggerCatchUp, StartedAt: t0.Add(time.Second), Outcome: OutcomeOK, Reason: ReasonResumed})
	if n := len(allRuns(t, s)); n != 0 {
		t.Fatalf("%d rows written ahead of the queue", n)
	}
	q.Flush(ctxb)
	rs := allRuns(t, s)
	if len(rs) != 2 || rs[0].Reason != ReasonStarted || rs[1].Reason != ReasonResumed || rs[0].ID > rs[1].ID {
		t.Fatalf("rows = %+v", rs)
	}
}

// TestQueueDropsOldestPastMax: a full queue drops its oldest row write and
// counts it; the verdict of a dropped begin is accepted and not misapplied.
func TestQueueDropsOldestPastMax(t *testing.T) {
	s := newStore(t)
	q, ch := newQueue(t, s, QueueOptions{Max: 3})
	refuseWrites(t, s, true)
	first, _ := q.Begin(ctxb, "watchdog:a", TriggerSchedule, time.Time{}, t0)
	for i := 1; i <= 4; i++ {
		q.Record(ctxb, Run{JobID: "watchdog:a", Trigger: TriggerSchedule, StartedAt: t0.Add(time.Duration(i) * time.Minute),
			Outcome: OutcomeOK, Reason: ReasonAlreadyRunning})
	}
	if err := q.Finish(ctxb, first, OutcomeOK, ReasonAlreadyRunning, nil, t0.Add(time.Second)); err != nil {
		t.Fatalf("Finish of a dropped begin: %v", err)
	}
	if h := q.Health(); h.Pending != 3 || h.Lost != 2 || h.TotalLost != 2 {
		t.Fatalf("health = %+v, want 3 pending, 2 lost", h)
	}
	refuseWrites(t, s, false)
	q.Flush(ctxb)
	rs := allRuns(t, s)
	if len(rs) != 3 || !rs[0].StartedAt.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("rows = %+v, want the newest 3", rs)
	}
	cs := ch.list()
	if len(cs) != 2 || cs[1].Lost != 2 || cs[1].WrittenLate != 3 {
		t.Errorf("recovery reported %+v, want 3 written late and 2 lost", cs)
	}
}

// TestQueueEventsFollowTheirRow: an event raised by a verdict written late
// is in the outbox with the row's real id, derived in the same transaction.
func TestQueueEventsFollowTheirRow(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{})
	refuseWrites(t, s, true)
	prov, _ := q.Begin(ctxb, "watchdog:web", TriggerEvent, time.Time{}, t0)
	calls := 0
	if err := q.FinishEmit(ctxb, prov, OutcomeFailed, ReasonStartFailed, nil, t0.Add(3*time.Second), downEmitter(&calls)); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Fatalf("emitter ran %d times before the row could be written", calls)
	}
	refuseWrites(t, s, false)
	q.Flush(ctxb)
	rs := allRuns(t, s)
	ds, err := s.Deliveries(ctxb, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || len(ds) != 2 || ds[0].RunID != rs[0].ID || string(ds[0].Payload) != fmt.Sprintf(`{"id":"ev-%d"}`, rs[0].ID) {
		t.Fatalf("rows %+v, deliveries %+v", rs, ds)
	}
}

// TestQueueBeatWaitsAndRecovers: a heartbeat alone can take the ledger down
// and is written once it comes back.
func TestQueueBeatWaitsAndRecovers(t *testing.T) {
	s := newStore(t)
	q, ch := newQueue(t, s, QueueOptions{})
	refuseWrites(t, s, true)
	hb := Heartbeat{InstanceID: "i1", PID: 1, Version: "t", StartedAt: t0, BeatAt: t0.Add(time.Minute), Mode: ModeForeground, Hostname: "h"}
	if err := q.Beat(ctxb, hb); err != nil {
		t.Fatal(err)
	}
	if h := q.Health(); h.Up || h.Pending != 0 {
		t.Fatalf("health = %+v", h)
	}
	refuseWrites(t, s, false)
	if !q.Flush(ctxb) {
		t.Fatal("flush failed")
	}
	hbs, _ := s.Heartbeats(ctxb)
	if len(hbs) != 1 || !hbs[0].BeatAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("heartbeats = %+v", hbs)
	}
	if cs := ch.list(); len(cs) != 2 {
		t.Errorf("OnChange calls = %+v", cs)
	}
}

// TestQueueConcurrentWritersLoseNothing: many writers while writes fail and
// recover under them: every run ends as exactly one row with its verdict.
func TestQueueConcurrentWritersLoseNothing(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{})
	const writers, runs = 8, 25
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			refuseWrites(t, s, i%2 == 0)
			q.Flush(ctxb)
			time.Sleep(time.Millisecond)
		}
	}()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < runs; i++ {
				start := t0.Add(time.Duration(w*runs+i) * time.Second)
				id, err := q.Begin(ctxb, fmt.Sprintf("job:w%d", w), TriggerSchedule, time.Time{}, start)
				if err != nil {
					t.Error(err)
					return
				}
				if err := q.Finish(ctxb, id, OutcomeOK, ReasonCompleted, map[string]int{"i": i}, start.Add(time.Millisecond)); err != nil {
					t.Errorf("finish %d: %v", id, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	time.Sleep(5 * time.Millisecond)
	refuseWrites(t, s, false)
	if !q.Flush(ctxb) {
		t.Fatal("final flush failed")
	}
	rs := allRuns(t, s)
	if len(rs) != writers*runs {
		t.Fatalf("%d rows, want %d", len(rs), writers*runs)
	}
	for _, r := range rs {
		if r.Verdict() != "ok/completed" {
			t.Fatalf("row %+v not finished", r)
		}
	}
}

// TestQueueSpillsAndNextImports: what waits at Close goes to a private spill
// file; the next queue of the same ledger writes it, in order, with the
// verdicts and times, and derives the events again; the file is gone.
func TestQueueSpillsAndNextImports(t *testing.T) {
	path := dbPath(t)
	spill := filepath.Join(t.TempDir(), "run", "svc-ctl")
	s := openT(t, path)
	q, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{filepath.Join(t.TempDir(), "no\x00such"), spill}, Max: 2})
	running, _ := q.Begin(ctxb, "job:long", TriggerSchedule, t0, t0)
	refuseWrites(t, s, true)
	q.Record(ctxb, Run{JobID: "watchdog:web", Trigger: TriggerSchedule, StartedAt: t0.Add(time.Second), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning})
	prov, _ := q.Begin(ctxb, "watchdog:web", TriggerEvent, time.Time{}, t0.Add(2*time.Second))
	q.FinishEmit(ctxb, prov, OutcomeFailed, ReasonStartFailed, nil, t0.Add(4*time.Second), downEmitter(new(int)))
	q.Finish(ctxb, running, OutcomeFailed, ReasonInterrupted, nil, t0.Add(5*time.Second)) // drops the oldest
	q.DeleteHeartbeat(ctxb, "i1")
	res := q.Close(ctxb)
	if res.SpillPath == "" || res.Err != nil || res.Rows != 2 || res.Lost != 0 || filepath.Dir(res.SpillPath) != spill {
		t.Fatalf("Close = %+v", res)
	}
	if _, err := q.Begin(ctxb, "x", TriggerSchedule, time.Time{}, t0); err == nil {
		t.Error("a closed queue took a write")
	}
	wantPrivate(t, res.SpillPath, 0o600)
	wantPrivate(t, spill, 0o700)
	s.Close()

	s2 := openT(t, path)
	calls := 0
	q2, _ := newQueue(t, s2, QueueOptions{SpillDirs: []string{spill}, Emit: downEmitter(&calls)})
	files, err := q2.ImportSpills()
	if err != nil || len(files) != 1 || files[0].Rows != 2 || files[0].Lost != 1 || files[0].Cause != CausePermission {
		t.Fatalf("ImportSpills = %+v, %v", files, err)
	}
	if !q2.Flush(ctxb) {
		t.Fatalf("flush: %+v", q2.Health())
	}
	rs := allRuns(t, s2)
	// the already-running record was the oldest when the queue overflowed
	if len(rs) != 2 || rs[0].Verdict() != "failed/interrupted" || !rs[0].FinishedAt.Equal(t0.Add(5*time.Second)) ||
		rs[1].Verdict() != "failed/start-failed" || !rs[1].FinishedAt.Equal(t0.Add(4*time.Second)) {
		t.Fatalf("rows = %+v", rs)
	}
	if calls != 1 {
		t.Errorf("events derived %d times on import, want 1", calls)
	}
	if ds, _ := s2.Deliveries(ctxb, 10); len(ds) != 2 || ds[0].RunID != rs[1].ID {
		t.Errorf("deliveries = %+v", ds)
	}
	if m, _ := filepath.Glob(filepath.Join(spill, "*")); len(m) != 0 {
		t.Errorf("left in the spill dir: %v", m)
	}
}

// TestCloseWithNowhereToSpillCounts: with no spill location, Close says how
// many rows are lost instead of dropping them silently.
func TestCloseWithNowhereToSpillCounts(t *testing.T) {
	s := newStore(t)
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	q, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{filepath.Join(blocker, "sub")}})
	refuseWrites(t, s, true)
	q.Record(ctxb, Run{JobID: "agent", Trigger: TriggerStartup, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonStarted})
	res := q.Close(ctxb)
	if res.SpillPath != "" || res.Err == nil || res.Lost != 1 {
		t.Fatalf("Close = %+v", res)
	}
}

// TestWriteFailureRefusalsAreNotFailures: the ledger's own conditions are
// failures; refusals of the write itself are not.
func TestWriteFailureRefusalsAreNotFailures(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		err  error
		want Cause
		ok   bool
	}{
		{&busyError{cause: errors.New("locked")}, CauseBusy, true},
		{damaged("x", "y", nil), CauseDamaged, true},
		{fmt.Errorf("finish: %w", ErrAlreadyFinished), "", false},
		{fmt.Errorf("x: %w", ErrBadReason), "", false},
		{errors.New("sql: database is closed"), "", false},
	} {
		got, ok := writeFailure(c.err, dir)
		if got != c.want || ok != c.ok {
			t.Errorf("writeFailure(%v) = %q, %v; want %q, %v", c.err, got, ok, c.want, c.ok)
		}
	}
}

// TestWriteFailureOfAFullDatabase: SQLITE_FULL, as SQLite reports a disk
// that took no more pages, is "disk full".
func TestWriteFailureOfAFullDatabase(t *testing.T) {
	s := newStore(t)
	var pages int
	if err := s.w.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	big := map[string]string{"blob": strings.Repeat("x", 6000)}
	var err error
	for i := 0; i < 50 && err == nil; i++ {
		var id int64
		id, err = s.Begin(ctxb, "job:x", TriggerSchedule, time.Time{}, t0)
		if err == nil {
			err = s.Finish(ctxb, id, OutcomeOK, ReasonCompleted, big, t0)
		}
	}
	if c, ok := s.WriteFailure(err); !ok || c != CauseDiskFull {
		t.Fatalf("WriteFailure(%v) = %q, %v; want disk-full", err, c, ok)
	}
	h := Health{Cause: CauseDiskFull, Dir: "/var/lib/svc-ctl", FreeBytes: 0, Pending: 14}
	if got := h.Summary(); got != "disk full (0 B free on /var/lib/svc-ctl), 14 rows waiting" {
		t.Errorf("Summary = %q", got)
	}
}

func TestSpillLinesRoundTrip(t *testing.T) {
	o := &op{Kind: opRecord, Prov: -3, Run: &Run{JobID: "job:a", Trigger: TriggerSchedule, StartedAt: t0, FinishedAt: t0.Add(time.Second),
		Outcome: OutcomeOK, Reason: ReasonCompleted, Detail: json.RawMessage(`{"a":1}`)}, Emits: true}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back op
	if err := json.Unmarshal(b, &back); err != nil || back.check() != nil {
		t.Fatalf("%s: %v %v", b, err, back.check())
	}
	if back.Run.JobID != "job:a" || !back.Run.FinishedAt.Equal(t0.Add(time.Second)) || string(back.Run.Detail) != `{"a":1}` || !back.Emits {
		t.Errorf("round trip = %+v", back.Run)
	}
}

// TestImportKeepsVerdictWithItsBegin: a verdict queued behind its own begin
// (it arrived while the begin was being written) refers to it by the
// provisional id; spilled and imported by another process, it still lands
// on that row.
func TestImportKeepsVerdictWithItsBegin(t *testing.T) {
	path := dbPath(t)
	spill := filepath.Join(t.TempDir(), "spill")
	s := openT(t, path)
	q, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{spill}})
	refuseWrites(t, s, true)
	prov, _ := q.Begin(ctxb, "job:a", TriggerSchedule, t0, t0)
	q.mu.Lock()
	q.begun[prov].inflight = true
	q.mu.Unlock()
	q.Finish(ctxb, prov, OutcomeOK, ReasonCompleted, nil, t0.Add(time.Minute))
	q.mu.Lock()
	q.begun[prov].inflight = false
	q.mu.Unlock()
	if h := q.Health(); h.Pending != 2 {
		t.Fatalf("pending = %d, want the begin and its verdict", h.Pending)
	}
	res := q.Close(ctxb)
	if res.SpillPath == "" {
		t.Fatalf("Close = %+v", res)
	}
	refuseWrites(t, s, false)
	q2, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{spill}})
	q2.Begin(ctxb, "job:b", TriggerSchedule, time.Time{}, t0.Add(time.Hour)) // written at once: the importer is up
	if files, err := q2.ImportSpills(); err != nil || len(files) != 1 || files[0].Unusable != 0 {
		t.Fatalf("ImportSpills = %+v, %v", files, err)
	}
	q2.Flush(ctxb)
	var got []string
	for _, r := range allRuns(t, s) {
		got = append(got, r.JobID+" "+r.Verdict())
	}
	if strings.Join(got, ", ") != "job:a ok/completed, job:b running" {
		t.Errorf("rows = %v", got)
	}
}

// TestFlushCutShortKeepsTheWrite: a flush whose context ends (a stop's
// deadline) while the database is locked keeps the write first in line.
func TestFlushCutShortKeepsTheWrite(t *testing.T) {
	path := dbPath(t)
	s, err := Open(path, Options{Logger: quietLogger(), BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, _ := newQueue(t, s, QueueOptions{})
	refuseWrites(t, s, true)
	q.Record(ctxb, Run{JobID: "agent", Trigger: TriggerStartup, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonStarted})
	refuseWrites(t, s, false)
	tx := lockWriter(t, path)
	ctx, cancel := context.WithTimeout(ctxb, 100*time.Millisecond)
	defer cancel()
	if q.Flush(ctx) {
		t.Fatal("flush succeeded against a locked database")
	}
	if h := q.Health(); h.Pending != 1 {
		t.Fatalf("pending = %d after a cut-short flush, want the write kept", h.Pending)
	}
	tx.Rollback()
	if !q.Flush(ctxb) || len(allRuns(t, s)) != 1 {
		t.Fatalf("the kept write was not written: %+v", q.Health())
	}
}

// TestSpilledBeginKeepsItsWriter: a running row spilled by one agent and
// written by the next names the instance that began it, so the reaper
// judges it by that (gone) instance, not as the importer's own run.
func TestSpilledBeginKeepsItsWriter(t *testing.T) {
	path := dbPath(t)
	spill := filepath.Join(t.TempDir(), "spill")
	s1, err := Open(path, Options{Logger: quietLogger(), Instance: "first"})
	if err != nil {
		t.Fatal(err)
	}
	q1, _ := newQueue(t, s1, QueueOptions{SpillDirs: []string{spill}})
	refuseWrites(t, s1, true)
	q1.Begin(ctxb, "job:long", TriggerSchedule, t0, t0)
	q1.Close(ctxb)
	s1.Close()
	s2, err := Open(path, Options{Logger: quietLogger(), Instance: "second"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	q2, _ := newQueue(t, s2, QueueOptions{SpillDirs: []string{spill}})
	if _, err := q2.ImportSpills(); err != nil {
		t.Fatal(err)
	}
	q2.Flush(ctxb)
	var inst string
	if err := s2.r.QueryRow(`SELECT instance_id FROM run_trace WHERE job_id = 'job:long'`).Scan(&inst); err != nil || inst != "first" {
		t.Fatalf("instance_id = %q, %v; want the instance that began it", inst, err)
	}
}

// TestRowsNameTheirBoot: every row names the boot it was written in, by
// Store and by Queue alike, begun or recorded; a row that waited in the
// queue through a spill and was written in the next boot still names the
// boot it began in (a clock window could not tell it from the next boot's).
func TestRowsNameTheirBoot(t *testing.T) {
	path := dbPath(t)
	spill := filepath.Join(t.TempDir(), "spill")
	s1, err := Open(path, Options{Logger: quietLogger(), Instance: "first", Boot: "boot-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Begin(ctxb, "job:begun", TriggerSchedule, t0, t0); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s1, Run{JobID: "job:recorded", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	if _, err := s1.RecordLazy(ctxb, Run{JobID: "job:lazy", Trigger: TriggerSchedule, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted}); err != nil {
		t.Fatal(err)
	}
	q1, _ := newQueue(t, s1, QueueOptions{SpillDirs: []string{spill}})
	refuseWrites(t, s1, true)
	q1.Begin(ctxb, "job:spilled-begin", TriggerSchedule, t0, t0)
	id, _ := q1.Begin(ctxb, "job:spilled-finished", TriggerSchedule, t0, t0)
	q1.Finish(ctxb, id, OutcomeOK, ReasonCompleted, nil, t0.Add(time.Second))
	q1.Record(ctxb, Run{JobID: "job:spilled-record", Trigger: TriggerSchedule, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	q1.Close(ctxb)
	s1.Close()

	s2, err := Open(path, Options{Logger: quietLogger(), Instance: "second", Boot: "boot-2"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	q2, _ := newQueue(t, s2, QueueOptions{SpillDirs: []string{spill}})
	if _, err := q2.ImportSpills(); err != nil {
		t.Fatal(err)
	}
	q2.Flush(ctxb)
	q2.Record(ctxb, Run{JobID: "job:next-boot", Trigger: TriggerSchedule, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})
	s3, err := Open(path, Options{Logger: quietLogger()}) // no boot known (an OS that names none)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	mustRecord(t, s3, Run{JobID: "job:unknown-boot", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonCompleted})

	want := map[string]string{
		"job:begun": "boot-1", "job:recorded": "boot-1", "job:lazy": "boot-1",
		"job:spilled-begin": "boot-1", "job:spilled-finished": "boot-1", "job:spilled-record": "boot-1",
		"job:next-boot": "boot-2", "job:unknown-boot": "NULL",
	}
	rows, err := s2.r.Query(`SELECT job_id, COALESCE(boot_id, 'NULL') FROM run_trace`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var job, boot string
		if err := rows.Scan(&job, &boot); err != nil {
			t.Fatal(err)
		}
		got[job] = boot
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("boot_id by job:\n got %v\nwant %v", got, want)
	}
}

// TestQueueRunRetriesOnceWritesWait: Run sleeps with no timer while nothing
// waits, so the write that fails must wake it; it then retries every Retry
// by itself (no Kick) until the rows are written.
func TestQueueRunRetriesOnceWritesWait(t *testing.T) {
	s := newStore(t)
	q, _ := newQueue(t, s, QueueOptions{Retry: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(ctxb)
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	for round := range 2 { // a second outage after a recovery wakes it too
		refuseWrites(t, s, true)
		if _, err := q.Record(ctxb, Run{JobID: "job:pull", Trigger: TriggerSchedule, StartedAt: t0.Add(time.Duration(round) * time.Minute),
			Outcome: OutcomeOK, Reason: ReasonAlreadyRunning}); err != nil {
			t.Fatal(err)
		}
		if h := q.Health(); h.Up || h.Pending != 1 {
			t.Fatalf("round %d: health %+v, want down with 1 pending", round, h)
		}
		refuseWrites(t, s, false)
		testutil.WaitFor(t, 5*time.Second, "Run to write the waiting row", func() bool { return q.Health().Up && q.Health().Pending == 0 })
		if n := len(allRuns(t, s)); n != round+1 {
			t.Fatalf("round %d: %d rows, want %d", round, n, round+1)
		}
	}
}
