package watchdog

import (
	"fmt"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// TestOneDefinitionOfARestart: a restart replaces an instance that had been
// healthy, and its row says whose (restart_by). A first start, a start
// after a person's stop and the retry of a failed start are starts, with no
// restart_by; a crash replaced is the watchdog's, a person's restart the
// person's, a reload's replace the reload's. Before, the first start
// counted as a restart and a person's restart did not.
func TestOneDefinitionOfARestart(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, StartTimeout: "1s"})
	by := func(r Result, want string, what string) {
		t.Helper()
		if r.Outcome != runtrace.OutcomeOK || r.Detail.RestartBy != want {
			t.Errorf("%s: %s/%s restart_by %q; want ok, restart_by %q", what, r.Outcome, r.Reason, r.Detail.RestartBy, want)
		}
	}
	by(e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), "", "a first start")

	old := e.Pid("web")
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "the killed instance gone", func() bool { ok, _ := proc.Match(old); return !ok })
	by(e.ensure("web", Request{Trigger: runtrace.TriggerEvent, Cause: CauseExited}), RestartByWatchdog, "a crash replaced")

	by(e.ensure("web", Request{Restart: true}), RestartByPerson, "a person's restart")
	by(e.ensure("web", Request{Trigger: runtrace.TriggerManual, Replace: true, Reload: true}), RestartByReload, "a reload's replace")

	if _, err := e.sup.Stop(t.Context(), "web"); err != nil {
		t.Fatal(err)
	}
	by(e.ensure("web", Request{Manual: true}), "", "a start after a person's stop")

	// A failed start, then its retry: the retry replaces an instance that
	// never passed its check.
	e.sup.SetConfig(testutil.Config(t, `drain_timeout = "3s"`, fmt.Sprint(
		testutil.Service{Name: "web", Addr: addr, Args: []string{"--startup-delay", "3s"}, StartTimeout: "300ms"}.TOML(testsvcBin))))
	old = e.Pid("web")
	testutil.KillPID(t, int(old.PID))
	testutil.WaitFor(t, 5*time.Second, "the killed instance gone", func() bool { ok, _ := proc.Match(old); return !ok })
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerEvent}), runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	e.sup.SetConfig(e.Cfg)
	by(e.ensure("web", Request{Manual: true}), "", "the retry after a failed start")
}
