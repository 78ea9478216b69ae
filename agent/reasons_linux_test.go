package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/report"
	"svcctl/runtrace"
)

// A paused job's slots are skipped/paused, the command never starts, and
// `why` answers from the skipped branch naming the pause.
func TestPausedJobIsSkippedAndWhySaysSo(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "tick"
schedule = "@every 1s"
timezone = "UTC"
grace = "0s"
command = ["/usr/bin/touch", %q]
`, ran))
	if _, err := e.sup.PauseTarget("tick", 0, "migrating the database"); err != nil {
		t.Fatal(err)
	}
	startAgent(t, e, Options{})
	testutil.WaitFor(t, 10*time.Second, "two skipped/paused slots", func() bool {
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.JobID("tick"), Reason: runtrace.ReasonPaused})
		return n >= 2
	})
	for _, r := range jobRuns(e, "tick") {
		if r.Reason != runtrace.ReasonPaused {
			t.Fatalf("a paused job ran: %s %s", r.Verdict(), r.Detail)
		}
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatal("the paused job's command ran")
	}
	last := jobRuns(e, "tick")[0]
	d, err := report.Why(context.Background(), e.Store, e.Cfg, "tick", last.ScheduledAt, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if d.Branch != "skipped" || d.Row == nil || d.Row.Reason != runtrace.ReasonPaused || !strings.Contains(strings.Join(d.LookNext, " "), "pause") {
		t.Fatalf("why = %+v; want the skipped branch pointing at the pause", d)
	}
}

// While the agent drains (an in-flight cycle holds it), an exit that would
// trigger a cycle is recorded skipped/draining instead of starting one.
func TestTriggerWhileDrainingIsSkipped(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := envOf(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h"}.TOML(testsvcBin)+`
[[service]]
name = "slow"
command = ["/bin/sleep", "600"]
interval = "1h"
  [service.health]
  exec = ["/bin/sleep", "2"]
  timeout = "10s"
  confirm = "0s"
`)
	var ag *Agent
	ra := startAgentWith(t, e, Options{}, func(a *Agent) { ag = a })
	testutil.WaitFor(t, 20*time.Second, "web started and slow's cycle in flight", func() bool {
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("slow"), Outcome: runtrace.OutcomeRunning})
		return latestStarted(e, "web", time.Time{}) != nil && n == 1
	})
	stopped := make(chan error, 1)
	go func() { stopped <- ra.stop(t) }()
	testutil.WaitFor(t, 10*time.Second, "the agent draining", func() bool { return ag.draining.Load() })
	syscall.Kill(int(e.Pid("web").PID), syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "skipped/draining for web", func() bool {
		n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Reason: runtrace.ReasonDraining})
		return n == 1
	})
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	if n, _ := e.Store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Reason: runtrace.ReasonStarted}); n != 1 {
		t.Fatalf("%d starts of web: a cycle ran while draining", n)
	}
}
