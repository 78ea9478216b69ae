package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
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

// End to end: an agent SIGKILLed while a job runs leaves the job's process
// running (reparented to init). The next agent, started at once, stops that
// process (its identity noted in the running row) before its own job loops
// start, records failed/abandoned naming the kill, and the next slot's run is
// the only copy: never two at once.
//
// The job's output pipe has one reader, the agent: once the agent is killed,
// the job's next write ends it with SIGPIPE. The job here writes one line at
// start and nothing after, so the agent is killed only once that line is in
// last.log; killed before, the orphan died at its first write and the reaper
// rightly found it "already ended" (the flake this wait removes).
func TestKilledAgentsOrphanedJobIsStopped(t *testing.T) {
	cfg, state := writeConfig(t, "", fmt.Sprintf(`
[[job]]
name = "slow"
schedule = "@every 1s"
timezone = "UTC"
command = [%q, "--exit-now", "0", "--sleep", "40s"]
timeout = "10m"
`, testsvcBin))
	first, _ := startAgentProcess(t, cfg)
	st := openStore(t, state)
	ctx := context.Background()
	running := func() []runtrace.Run {
		rs, _ := st.Runs(ctx, runtrace.Filter{JobID: "job:slow", Outcome: runtrace.OutcomeRunning})
		return rs
	}
	noted := func(r runtrace.Run) *proc.Instance {
		var d struct {
			Process *proc.Instance `json:"process"`
		}
		if json.Unmarshal(r.Detail, &d) != nil {
			return nil
		}
		return d.Process
	}
	var orphan proc.Instance
	var orphanRow int64
	testutil.WaitFor(t, 20*time.Second, "a job run in flight, its process noted", func() bool {
		rs := running()
		if len(rs) != 1 || noted(rs[0]) == nil {
			return false
		}
		orphan, orphanRow = *noted(rs[0]), rs[0].ID
		return true
	})
	// What the job writes at start has reached its log: from here on it
	// writes nothing, so it outlives the agent's pipe.
	testutil.WaitFor(t, 20*time.Second, "the job's start line in last.log", func() bool {
		b, _ := os.ReadFile(filepath.Join(state, "jobs", "slow", "last.log"))
		return strings.Contains(string(b), fmt.Sprintf("pid %d starting", orphan.PID))
	})
	first.Process.Kill()
	first.Wait()
	if ok, err := proc.Match(orphan.Identity); !ok || err != nil {
		t.Fatalf("the job's process (pid %d) did not outlive the killed agent (%v, %v): nothing to test", orphan.PID, ok, err)
	}
	t.Cleanup(func() { proc.StopTree(context.Background(), orphan, time.Second) })
	startAgentProcess(t, cfg)
	var row runtrace.Run
	testutil.WaitFor(t, 20*time.Second, "the killed agent's run reaped", func() bool {
		rs, _ := st.Runs(ctx, runtrace.Filter{JobID: "job:slow", Reason: runtrace.ReasonAbandoned})
		if len(rs) == 1 {
			row = rs[0]
		}
		return len(rs) == 1
	})
	if row.ID != orphanRow || !strings.Contains(string(row.Detail), fmt.Sprintf("killed the orphaned run (pid %d;", orphan.PID)) {
		t.Fatalf("abandoned row %d: %s; want run %d saying it killed pid %d", row.ID, row.Detail, orphanRow, orphan.PID)
	}
	if ok, _ := proc.Match(orphan.Identity); ok {
		t.Fatalf("the orphaned job process (pid %d) still runs after the reaper said it killed it", orphan.PID)
	}
	t.Logf("abandoned row: %s", row.Detail)
	// The next slot: one copy, begun after the orphan's row was finished.
	testutil.WaitFor(t, 20*time.Second, "the next slot's run", func() bool {
		rs := running()
		return len(rs) == 1 && rs[0].ID != orphanRow
	})
	rs := running()
	if len(rs) != 1 || rs[0].StartedAt.Before(row.FinishedAt) {
		t.Fatalf("running rows %+v; want one, begun at or after %s", rs, row.FinishedAt)
	}
}
