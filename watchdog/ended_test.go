package watchdog

import (
	"strings"
	"testing"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/snapshot"
)

// The fast path: the agent saw every process of the instance end, so the
// cycle lists none again; the evidence and the new instance are as always.
func TestEndedInstanceIsRestartedWithItsEvidence(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Args: []string{"--tick", "20ms"}})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	old := e.Pid("web")
	testutil.WaitFor(t, 5*time.Second, "a log line", func() bool {
		tail, _ := fsutil.TailLines(e.Cfg.Services[0].Log, 5, 4096)
		return len(tail) > 0
	})
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "old gone", func() bool { ok, _ := proc.Match(old); return !ok })
	r := e.ensure("web", Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Cause: CauseExited, Ended: &old})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if !strings.Contains(r.Detail.OldInstance, "no process of the instance left") || r.Detail.OldStop != nil {
		t.Fatalf("old instance: %q, stop %+v", r.Detail.OldInstance, r.Detail.OldStop)
	}
	es, _, err := snapshot.Read(e.sup.Paths.Snapshots("web"), 1)
	if err != nil || len(es) != 1 || es[0].RunID != r.RunID || es[0].Process != nil || len(es[0].LogTail) == 0 {
		t.Fatalf("snapshot = %+v, %v; want one for run %d with the old log tail and no process facts", es, err, r.RunID)
	}
	if !testutil.Healthy(addr) || e.Pid("web").Same(old) {
		t.Fatal("no new healthy instance recorded")
	}
}

// Ended names an instance, not a service: when the pid file records another
// one (a person's restart replaced it meanwhile), that one is listed and
// stopped as always, never taken for gone.
func TestEndedOfAnotherInstanceStillStopsTheRecordedOne(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	wantResult(t, e.ensure("web", Request{}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	live := e.Pid("web")
	earlier := live
	earlier.Start-- // another start stamp: the instance before it
	testutil.Get("http://" + addr + "/control/hang")
	r := e.ensure("web", Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Cause: CauseExited, Ended: &earlier})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if ok, _ := proc.Match(live); ok {
		t.Fatal("the recorded instance was left running beside the new one")
	}
	if !strings.Contains(r.Detail.OldInstance, "stopped") || r.Detail.OldStop == nil {
		t.Fatalf("old instance: %q, want it stopped", r.Detail.OldInstance)
	}
}
