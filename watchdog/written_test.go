package watchdog

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

// runsOf is every watchdog row of the service.
func runsOf(t *testing.T, e *testEnv, name string) []runtrace.Run {
	t.Helper()
	rs, err := e.Store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID(name), Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// fileOf is the file at path now (it must exist).
func fileOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestHealthyCyclesWriteNothingNew: a healthy service's cycles after the
// first healthy one write neither state.json nor watchdog.last.json (every
// write is a rename: the same inode means no write), while the ledger gets
// a row each, and the supervisor says when it last looked (Checked). A
// cycle whose clock passed refreshEvery writes both again.
func TestHealthyCyclesWriteNothingNew(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	clock := testkit.NewClock(time.Now())
	e.sup.Now = clock.Now
	if r := e.ensure("web", Request{Manual: true}); r.Reason != runtrace.ReasonStarted {
		t.Fatalf("start: %s", r.Message)
	}
	e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}) // healthy → healthy from here
	stPath, lastPath := e.sup.Paths.StateFile("web"), e.sup.Paths.WatchdogLast()
	st0, last0 := fileOf(t, stPath), fileOf(t, lastPath)
	rows0 := len(runsOf(t, e, "web"))
	for i := range 3 {
		clock.Advance(time.Second)
		if r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}); r.Reason != runtrace.ReasonAlreadyRunning {
			t.Fatalf("cycle %d: %s %s", i, r.Reason, r.Message)
		}
	}
	if st, last := fileOf(t, stPath), fileOf(t, lastPath); !os.SameFile(st0, st) || !os.SameFile(last0, last) {
		t.Fatalf("healthy cycles rewrote state.json (%v) or watchdog.last.json (%v)", !os.SameFile(st0, st), !os.SameFile(last0, last))
	}
	if n := len(runsOf(t, e, "web")); n != rows0+3 {
		t.Fatalf("%d rows after 3 more cycles, want %d: every cycle keeps its row", n, rows0+3)
	}
	if got := e.sup.Checked()["web"]; !got.Equal(clock.Now().UTC()) {
		t.Fatalf("Checked says %s, want the last look %s", got, clock.Now().UTC())
	}
	clock.Advance(refreshEvery)
	e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	if st, last := fileOf(t, stPath), fileOf(t, lastPath); os.SameFile(st0, st) || os.SameFile(last0, last) {
		t.Fatal("a cycle refreshEvery after the last write wrote nothing")
	}
	if st, err := state.LoadService(stPath); err != nil || !st.LastProbeAt.Equal(clock.Now().UTC()) {
		t.Fatalf("state.json after the refresh: last_probe_at %s, %v; want %s", st.LastProbeAt, err, clock.Now().UTC())
	}
}

// TestAnotherWritersStateIsReadAgain: what another process (a person's
// svc-ctl, its own supervisor) writes under the service's lock is what the
// next cycle of this one decides from, not what it kept in memory.
func TestAnotherWritersStateIsReadAgain(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	if r := e.ensure("web", Request{Manual: true}); r.Reason != runtrace.ReasonStarted {
		t.Fatalf("start: %s", r.Message)
	}
	e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	other := NewSupervisor(e.Cfg, e.Store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	st, err := other.loadState("web")
	if err != nil {
		t.Fatal(err)
	}
	st.Failures = 7 // a fact only the other writer knows
	other.saveState("web", st, true)
	if got, err := e.sup.loadState("web"); err != nil || got.Failures != 7 {
		t.Fatalf("after another writer: failures %d, %v; want 7 (its file, not the kept copy)", got.Failures, err)
	}
}

// TestCycleThatActsWritesItsState: a cycle that restarts the service is
// durable and writes state.json, however recent the last write.
func TestCycleThatActsWritesItsState(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	if r := e.ensure("web", Request{Manual: true}); r.Reason != runtrace.ReasonStarted {
		t.Fatalf("start: %s", r.Message)
	}
	e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	// by its content, not its file identity (Windows may keep a replaced
	// file's index): the new instance's pid and start must be in it
	st0, _ := os.ReadFile(e.sup.Paths.StateFile("web"))
	e.killInstance(t, "web")
	if r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}); r.Reason != runtrace.ReasonStarted {
		t.Fatalf("after the kill: %s %s", r.Reason, r.Message)
	}
	if st1, err := os.ReadFile(e.sup.Paths.StateFile("web")); err != nil || bytes.Equal(st0, st1) {
		t.Fatalf("the restart's cycle did not write state.json (%v)", err)
	}
}

// TestLazyWriteOfAChangedFactIsWritten: a cycle that need not be durable
// still writes a state whose facts changed (here a failure counter a
// stable instance resets), and watchdog.last.json when its verdict's
// words changed.
func TestLazyWriteOfAChangedFactIsWritten(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	if r := e.ensure("web", Request{Manual: true}); r.Reason != runtrace.ReasonStarted {
		t.Fatalf("start: %s", r.Message)
	}
	e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	path := e.sup.Paths.StateFile("web")
	st, err := e.sup.loadState("web")
	if err != nil {
		t.Fatal(err)
	}
	st.Failures = 3
	e.sup.saveState("web", st, false)
	if got, err := state.LoadService(path); err != nil || got.Failures != 3 {
		t.Fatalf("state.json failures %d, %v after a lazy save of a changed fact; want 3", got.Failures, err)
	}
	lastPath := e.sup.Paths.WatchdogLast()
	e.sup.saveLast("web", &state.LastResult{Time: time.Now(), Trigger: runtrace.TriggerSchedule, Outcome: runtrace.OutcomeOK,
		Reason: runtrace.ReasonAlreadyRunning, Message: "other words"}, false)
	if lf, err := state.ReadLast(lastPath); err != nil || lf.Services["web"] == nil || lf.Services["web"].Message != "other words" {
		t.Fatalf("watchdog.last.json after a lazy save of other words: %+v, %v", lf, err)
	}
}
