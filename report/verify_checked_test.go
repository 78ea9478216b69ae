package report

import (
	"context"
	"os"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// A running agent whose healthy cycles change nothing leaves
// watchdog.last.json as it was and says in agent.status when it last
// looked: verify takes that look as the last cycle. It failed before
// ("last written 30s ago, more than twice the shortest interval"), and the
// reboot drill's negative scenario with it.
func TestVerifyTakesTheAgentsLastLook(t *testing.T) {
	e := newEnv(t, "1s")
	startAgent(t, e)
	testutil.WaitFor(t, 20*time.Second, "web healthy", func() bool { return testutil.Healthy(e.addr) })
	var written time.Time
	testutil.WaitFor(t, 20*time.Second, "watchdog.last.json", func() bool {
		st, err := os.Stat(e.p.WatchdogLast())
		if err == nil {
			written = st.ModTime()
		}
		return err == nil
	})
	// Cycles go on every second; the file is left as it is while nothing
	// changes (past twice the interval).
	testutil.WaitFor(t, 20*time.Second, "the file older than twice the interval", func() bool {
		st, err := os.Stat(e.p.WatchdogLast())
		return err == nil && time.Since(st.ModTime()) > 3*time.Second
	})
	r := Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now()})
	if c := check(t, r, "watchdog.last.json fresh"); c.Status != Pass {
		t.Fatalf("a running agent's cycles, the file written at %s: %+v", written.Format(time.TimeOnly), c)
	}
	// agent.status is renewed at each heartbeat, not at each cycle: read
	// between two renewals (here 2.5 s after now, heartbeat 1 s: the
	// report still live) its last look is older than two intervals, and is
	// judged against the report's own time. It failed so in the reboot
	// drill, whose heartbeat is longer than two intervals.
	r = Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now().Add(2500 * time.Millisecond)})
	if c := check(t, r, "watchdog.last.json fresh"); c.Status != Pass {
		t.Fatalf("read between two renewals of agent.status: %+v", c)
	}
	// An agent that stopped cycling is still caught: its last look is
	// older than two intervals at its report's time.
	if c := check(t, Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now().Add(10 * time.Minute)}), "watchdog.last.json fresh"); c.Status != Fail {
		t.Fatalf("ten minutes on: %+v", c)
	}
}
