package watchdog

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// TestRefusedBookkeepingKeepsDecisions: while state.json and
// watchdog.last.json cannot be written, the failure counter, backoff and
// given-up stay right in memory; the refusal is logged
// once, not per write; both files are written by the first cycle that can.
func TestRefusedBookkeepingKeepsDecisions(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "bad", Addr: addr, Args: []string{"--exit-now", "1"}, GiveUpAfter: 3, Backoff: "1h"})
	var logs bytes.Buffer
	e.sup = NewSupervisor(e.Cfg, e.Store, slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	stateFile, lastFile := e.sup.Paths.StateFile("bad"), e.sup.Paths.WatchdogLast()
	// A directory where each file goes: every replace of it fails (EISDIR),
	// as on a disk that refuses the write.
	for _, p := range []string{stateFile, lastFile} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sched := Request{Trigger: runtrace.TriggerSchedule}
	r := e.ensure("bad", sched)
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if e.sup.WritesFailing().IsZero() {
		t.Fatal("WritesFailing is zero after refused writes")
	}
	wantResult(t, e.ensure("bad", sched), runtrace.OutcomeSkipped, runtrace.ReasonBackoff)
	wantResult(t, e.ensure("bad", Request{Manual: true}), runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	r = e.ensure("bad", Request{Manual: true})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if r.Detail.State != state.GivenUp || r.Detail.Failures != 3 {
		t.Fatalf("after 3 failed starts: state %s, %d failures", r.Detail.State, r.Detail.Failures)
	}
	wantResult(t, e.ensure("bad", sched), runtrace.OutcomeSkipped, runtrace.ReasonGivenUp)
	if n := strings.Count(logs.String(), `"msg":"state.write_failing"`); n != 1 {
		t.Errorf("state.write_failing logged %d times, want once:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), `"level":"ERROR","msg":"state.write_failed"`) {
		t.Errorf("a refused write logged at ERROR on its own:\n%s", logs.String())
	}

	// The disk takes writes again.
	for _, p := range []string{stateFile, lastFile} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	wantResult(t, e.ensure("bad", sched), runtrace.OutcomeSkipped, runtrace.ReasonGivenUp)
	st, err := state.LoadService(stateFile)
	if err != nil || st.State != state.GivenUp || st.Failures != 3 || st.GivenUpAt.IsZero() {
		t.Fatalf("state.json after recovery = %+v, %v", st, err)
	}
	lf, err := state.ReadLast(lastFile)
	if err != nil || lf.Services["bad"] == nil || lf.Services["bad"].Reason != runtrace.ReasonGivenUp {
		t.Fatalf("watchdog.last.json after recovery = %+v, %v", lf, err)
	}
	if !e.sup.WritesFailing().IsZero() || !strings.Contains(logs.String(), `"msg":"state.write_recovered"`) {
		t.Errorf("recovery not reported:\n%s", logs.String())
	}
}

// TestCycleDoesNotWaitOnALockedLedger: with the ledger refusing writes (here
// locked by another process), a killed service is still restarted at once;
// its row waits in the recorder's queue under a provisional id and lands
// with its true outcome and times once the ledger takes writes again.
func TestCycleDoesNotWaitOnALockedLedger(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	ledger, err := runtrace.Open(e.Store.Path(), runtrace.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.Close()
	q := runtrace.NewQueue(ledger, runtrace.QueueOptions{SpillDirs: []string{t.TempDir()}})
	e.sup = NewSupervisor(e.Cfg, q, nil)
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)

	holder, err := sql.Open("sqlite", e.Store.Path()+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// The first refused write costs the busy timeout; the ledger is then
	// known down and nothing waits on it.
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	if h := q.Health(); h.Up || h.Cause != runtrace.CauseBusy {
		t.Fatalf("health = %+v, want down: busy", h)
	}
	old := e.Pid("web")
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "old instance gone", func() bool { ok, _ := proc.Match(old); return !ok })
	r := e.ensure("web", Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Why: "exited"})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if r.RunID >= 0 || r.RecordError != "" {
		t.Fatalf("run id %d, record error %q: want a provisional id and no error", r.RunID, r.RecordError)
	}
	if took := time.Duration(r.DurationMS) * time.Millisecond; took > 3*time.Second {
		t.Errorf("the restart took %s while the ledger was locked", took)
	}
	tx.Rollback()
	if !q.Flush(context.Background()) {
		t.Fatalf("flush after the lock is gone: %+v", q.Health())
	}
	rs, err := e.Store.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:web", Limit: 10})
	if err != nil || len(rs) != 3 {
		t.Fatalf("rows = %+v, %v; want the 3 cycles", rs, err)
	}
	if got := rs[0]; got.Verdict() != "ok/started" || got.Trigger != runtrace.TriggerEvent ||
		!got.StartedAt.Equal(r.StartedAt.Truncate(time.Millisecond)) {
		t.Errorf("restart row = %+v, want ok/started (event) started %s", got, r.StartedAt)
	}
}
