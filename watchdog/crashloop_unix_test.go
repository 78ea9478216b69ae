//go:build unix

package watchdog

import (
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

// Killed from outside again and again (svc-ctl drill, a person's kill -9),
// a healthy service is restarted every time: a crash loop is a service dying
// by itself, and a killed instance's start is not counted (review3 G6).
func TestKillsFromOutsideAreNoCrashLoop(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, LoopRestarts: "2", LoopWindow: "1m"})
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	for i := range 6 {
		id := e.pid("web")
		if err := syscall.Kill(int(id.PID), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, 10*time.Second, "the kill", func() bool { return !testutil.Healthy(addr) })
		r := e.ensure("web", Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Cause: CauseExited, Why: "killed by SIGKILL"})
		if r.Outcome != runtrace.OutcomeOK || r.Reason != runtrace.ReasonStarted {
			t.Fatalf("kill %d: %s/%s %q; want restarted", i+1, r.Outcome, r.Reason, r.Message)
		}
	}
	if st, _ := state.LoadService(e.sup.Paths.StateFile("web")); len(st.RecentStarts) > 1 {
		t.Fatalf("%d starts counted toward a crash loop after 6 kills from outside; want only the running instance's", len(st.RecentStarts))
	}
}
