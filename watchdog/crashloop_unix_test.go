//go:build unix

package watchdog

import (
	"bufio"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Killed from outside again and again (svc-ctl drill, a person's kill -9),
// a healthy service is restarted every time: a crash loop is a service dying
// by itself, and a killed instance's start is not counted.
func TestKillsFromOutsideAreNoCrashLoop(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, LoopRestarts: "2", LoopWindow: "1m"})
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	for i := range 6 {
		id := e.Pid("web")
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

// The words TestKilledFromOutside judges are those a real end produces:
// each signal sent to a real process, and an exit of its own, as
// proc.DescribeExit tells them.
func TestDescribeExitWordsOfKills(t *testing.T) {
	end := func(t *testing.T, sig syscall.Signal, args ...string) string {
		cmd := exec.Command(testsvcBin, args...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signalled once it runs its own code (its start line), as a
		// service is: its runtime's handlers are in place by then.
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if sig != 0 {
			cmd.Process.Signal(sig)
		}
		cmd.Wait()
		return strings.TrimPrefix(proc.DescribeExit(cmd.ProcessState), "exited ")
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		if signal.Ignored(sig) {
			// Ignored here (the suite was started under nohup): the child
			// inherits that, so the signal would not end it.
			t.Logf("%s is ignored by this process (nohup?): its child would inherit that; not sent", unix.SignalName(sig))
			continue
		}
		how := end(t, sig, "--exit-now", "0", "--sleep", "60s")
		if want := "killed by " + unix.SignalName(sig); how != want {
			t.Errorf("%s: DescribeExit = %q, want %q", unix.SignalName(sig), how, want)
		}
		if !killedFromOutside(CauseExited + ": " + how) {
			t.Errorf("%s: killedFromOutside(%q) = false, want true", unix.SignalName(sig), how)
		}
	}
	how := end(t, 0, "--exit-now", "3")
	if how != "with code 3" || killedFromOutside(CauseExited+": "+how) {
		t.Errorf("an exit of its own: %q, killedFromOutside %v; want \"with code 3\", false", how, killedFromOutside(CauseExited+": "+how))
	}
}
