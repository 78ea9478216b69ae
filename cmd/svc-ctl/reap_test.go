package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// An agent SIGKILLed mid-run leaves its row running. The next agent, once
// the dead one's heartbeat is 3 beats old, reaps the row at its start —
// though the job's timeout is an hour away — and prunes the dead heartbeat.
func TestKilledAgentsRunsReapedAtNextStart(t *testing.T) {
	cfg, state := writeConfig(t, "", fmt.Sprintf(`
[[job]]
name = "slow"
schedule = "@every 1s"
timezone = "UTC"
command = [%q, "--exit-now", "0", "--sleep", "20s"]
timeout = "1h"
`, testsvcBin))
	first, _ := startAgentProcess(t, cfg)
	st := openStore(t, state)
	ctx := context.Background()
	testutil.WaitFor(t, 20*time.Second, "a job run in flight", func() bool {
		n, _ := st.Count(ctx, runtrace.Filter{JobID: "job:slow", Outcome: runtrace.OutcomeRunning})
		return n == 1
	})
	hb, _ := st.Heartbeats(ctx)
	if len(hb) != 1 {
		t.Fatalf("heartbeats %+v", hb)
	}
	dead := hb[0].InstanceID
	first.Process.Kill()
	first.Wait()
	// heartbeat = "1s" (testutil): gone once its beat is 3 s old.
	testutil.WaitFor(t, 10*time.Second, "the dead agent's heartbeat 3 beats old", func() bool {
		hb, _ := st.Heartbeats(ctx)
		return len(hb) == 1 && time.Since(hb[0].BeatAt) > 3500*time.Millisecond
	})
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "the dead agent's run reaped and its heartbeat pruned", func() bool {
		rs, _ := st.Runs(ctx, runtrace.Filter{JobID: "job:slow", Reason: runtrace.ReasonAbandoned})
		hb, _ := st.Heartbeats(ctx)
		pruned := len(hb) > 0
		for _, h := range hb {
			pruned = pruned && h.InstanceID != dead
		}
		return len(rs) == 1 && pruned
	})
	rs, _ := st.Runs(ctx, runtrace.Filter{JobID: "job:slow", Reason: runtrace.ReasonAbandoned})
	if !strings.Contains(string(rs[0].Detail), dead) {
		t.Fatalf("the abandoned row does not name the dead instance %s: %s", dead, rs[0].Detail)
	}
}
