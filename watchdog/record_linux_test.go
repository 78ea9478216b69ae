package watchdog

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// callLog is a Recorder that records into the real store and remembers the
// order of the calls, beside the spawns the cycle reports.
type callLog struct {
	Recorder
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *callLog) Begin(ctx context.Context, id string, tr runtrace.Trigger, sched, start time.Time) (int64, error) {
	l.add("begin")
	return l.Recorder.Begin(ctx, id, tr, sched, start)
}

func (l *callLog) Finish(ctx context.Context, id int64, o runtrace.Outcome, r runtrace.Reason, d any, at time.Time) error {
	l.add("finish")
	return l.Recorder.Finish(ctx, id, o, r, d, at)
}

func (l *callLog) Record(ctx context.Context, r runtrace.Run) (int64, error) {
	l.add("record")
	return l.Recorder.Record(ctx, r)
}

func (l *callLog) RecordLazy(ctx context.Context, r runtrace.Run) (int64, error) {
	l.add("record-lazy")
	return l.Recorder.RecordLazy(ctx, r)
}

func (l *callLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// A healthy cycle that changed nothing is one row written once, without an
// fsync; a cycle that acts has its row begun, durably, before it spawns.
func TestRowDurabilityByCycle(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	log := &callLog{Recorder: e.sup.Rec}
	e.sup.Rec = log
	e.sup.OnSpawn = func(string, *proc.Child) { log.add("spawn") }

	sched := Request{Trigger: runtrace.TriggerSchedule}
	wantResult(t, e.ensure("web", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
	if got := log.take(); !slices.Equal(got, []string{"begin", "spawn", "finish"}) {
		t.Fatalf("first start: calls %v, want begin before the spawn, then finish", got)
	}
	// Healthy and was healthy: one lazy row, and it is the result's row.
	r := e.ensure("web", sched)
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	if got := log.take(); !slices.Equal(got, []string{"record-lazy"}) {
		t.Fatalf("healthy cycle: calls %v, want one lazy record", got)
	}
	row, err := e.Store.Latest(context.Background(), "watchdog:web")
	if err != nil || row == nil || row.ID != r.RunID || row.Reason != runtrace.ReasonAlreadyRunning || !row.StartedAt.Equal(r.StartedAt.Truncate(time.Millisecond)) {
		t.Fatalf("healthy cycle row %+v, %v; want run %d already-running started %v", row, err, r.RunID, r.StartedAt)
	}
	// Killed: the row is begun before anything is done about it.
	e.stopService("web")
	wantResult(t, e.ensure("web", sched), runtrace.OutcomeOK, runtrace.ReasonStarted)
	if got := log.take(); !slices.Equal(got, []string{"begin", "spawn", "finish"}) {
		t.Fatalf("restart: calls %v, want begin before the spawn", got)
	}
	// A person's `svc-ctl start` is begun at once, healthy or not.
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerManual, Manual: true}), runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	if got := log.take(); !slices.Equal(got, []string{"begin", "finish"}) {
		t.Fatalf("manual start: calls %v, want begin, finish", got)
	}
	// A cycle that ends before its first probe (paused) is one row, but a
	// durable one: only "healthy again, nothing changed" is lazy.
	if _, err := e.sup.PauseTarget("web", 0, "maintenance"); err != nil {
		t.Fatal(err)
	}
	wantResult(t, e.ensure("web", sched), runtrace.OutcomeSkipped, runtrace.ReasonPaused)
	if got := log.take(); !slices.Equal(got, []string{"record"}) {
		t.Fatalf("paused cycle: calls %v, want one durable record", got)
	}
}
