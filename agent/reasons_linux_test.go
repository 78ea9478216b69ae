package agent

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/redact"
	"svcctl/internal/testutil"
	"svcctl/report"
	"svcctl/runtrace"
)

// A job whose dependency is down is failed/dependency-failed naming the
// target, and its command is not started; once the dependency is up the
// job runs and completes.
func TestJobDependencyDownThenUp(t *testing.T) {
	dep := testutil.FreeAddr(t)
	ran := filepath.Join(t.TempDir(), "ran")
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "pull"
schedule = "@daily"
timezone = "UTC"
command = ["/usr/bin/touch", %q]
  [[job.depends]]
  kind = "tcp"
  address = %q
  timeout = "500ms"
`, ran, dep))
	j := e.cfg.Job("pull")
	res := runJobT(context.Background(), e.sup.Paths, j, redact.New())
	if res.Outcome != runtrace.OutcomeFailed || res.Reason != runtrace.ReasonDependencyFailed || !strings.Contains(fmt.Sprint(res.Detail["why"]), dep) {
		t.Fatalf("%s/%s %v; want failed/dependency-failed naming %s", res.Outcome, res.Reason, res.Detail, dep)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatal("the command ran though its dependency was down")
	}
	ln, err := net.Listen("tcp", dep)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res = runJobT(context.Background(), e.sup.Paths, j, redact.New())
	if res.Outcome != runtrace.OutcomeOK || res.Reason != runtrace.ReasonCompleted {
		t.Fatalf("%s/%s %v; want ok/completed with the dependency up", res.Outcome, res.Reason, res.Detail)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("the command did not run")
	}
}

// A job whose program is missing is failed/spawn-error naming it.
func TestJobSpawnError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "gone"
schedule = "@daily"
timezone = "UTC"
command = [%q]
`, missing))
	res := runJobT(context.Background(), e.sup.Paths, e.cfg.Job("gone"), redact.New())
	if res.Reason != runtrace.ReasonSpawnError || !strings.Contains(fmt.Sprint(res.Detail["error"]), missing) {
		t.Fatalf("%s/%s %v; want failed/spawn-error naming %s", res.Outcome, res.Reason, res.Detail, missing)
	}
}

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
		n, _ := e.store.Count(context.Background(), runtrace.Filter{JobID: runtrace.JobID("tick"), Reason: runtrace.ReasonPaused})
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
	d, err := report.Why(context.Background(), e.store, e.cfg, "tick", last.ScheduledAt, time.Now())
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
		n, _ := e.store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("slow"), Outcome: runtrace.OutcomeRunning})
		return latestStarted(e, "web", time.Time{}) != nil && n == 1
	})
	stopped := make(chan error, 1)
	go func() { stopped <- ra.stop(t) }()
	testutil.WaitFor(t, 10*time.Second, "the agent draining", func() bool { return ag.draining.Load() })
	syscall.Kill(int(e.pid("web").PID), syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "skipped/draining for web", func() bool {
		n, _ := e.store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Reason: runtrace.ReasonDraining})
		return n == 1
	})
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
	if n, _ := e.store.Count(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Reason: runtrace.ReasonStarted}); n != 1 {
		t.Fatalf("%d starts of web: a cycle ran while draining", n)
	}
}
