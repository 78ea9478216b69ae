package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// runByID reads one row of the ledger.
func runByID(t *testing.T, e *testEnv, id int64) *runtrace.Run {
	t.Helper()
	rs, err := e.Store.Runs(context.Background(), runtrace.Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if rs[i].ID == id {
			return &rs[i]
		}
	}
	t.Fatalf("no run %d", id)
	return nil
}

// orphanRun plays an agent killed mid-run: instance "killed"
// has a fresh heartbeat (it died a moment ago), a running row of job slow,
// and the job's process, spawned as runJob spawns it and noted in the row
// as the agent notes it; the process lives on, as one reparented to init
// does. It returns the row's id and the process.
func orphanRun(t *testing.T, e *testEnv) (int64, *proc.Child) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	if err := e.Store.Beat(ctx, runtrace.Heartbeat{InstanceID: "killed", PID: 4242, Version: "test",
		StartedAt: now.Add(-time.Hour), BeatAt: now, Mode: "service"}); err != nil {
		t.Fatal(err)
	}
	dead, err := runtrace.Open(e.sup.Paths.DB(), runtrace.Options{Instance: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	id, err := dead.Begin(ctx, runtrace.JobID("slow"), runtrace.TriggerSchedule, now, now)
	if err != nil {
		t.Fatal(err)
	}
	child, err := proc.Spawn(proc.SpawnSpec{Argv: []string{testsvcBin, "--exit-now", "0", "--sleep", "5m"}, Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		proc.StopTree(context.Background(), child.Instance, time.Second)
		<-child.Done
	})
	if err := dead.Note(ctx, id, map[string]any{"process": child.Instance}); err != nil {
		t.Fatal(err)
	}
	return id, child
}

// After an agent is killed while a job runs, the next agent stops the run's
// orphaned process (proven by its identity) before its own job loops start,
// and finishes the row failed/abandoned saying so: the next slot never runs
// a second copy beside it. Before the fix the process lived on and the row
// claimed the dead agent's heartbeat "was deleted".
func TestNextAgentKillsOrphanedJobRun(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "slow"
schedule = "@every 1s"
timezone = "UTC"
command = `+jobCommand(0, "30s", "")+`
timeout = "1h"
`)
	id, orphan := orphanRun(t, e)
	startAgent(t, e, Options{})
	// The reaper runs at start, before Ready: the orphan is gone by now.
	select {
	case <-orphan.Done:
	default:
		t.Fatalf("the orphaned job process (pid %d) outlived the next agent's start", orphan.PID)
	}
	if ok, err := proc.Match(orphan.Identity); ok || err != nil {
		t.Fatalf("orphan still matches: %v, %v", ok, err)
	}
	ctx := context.Background()
	r := runByID(t, e, id)
	want := fmt.Sprintf("killed the orphaned run (pid %d; 1 process: 1 on ", orphan.PID)
	if r.Verdict() != "failed/abandoned" || !strings.Contains(string(r.Detail), want) ||
		strings.Contains(string(r.Detail), "was deleted") || !strings.Contains(string(r.Detail), `"instance":"killed"`) {
		t.Fatalf("row = %s %s; want abandoned saying %q", r.Verdict(), r.Detail, want)
	}
	// The next slot runs one copy, begun after the orphan's row was finished.
	testutil.WaitFor(t, 20*time.Second, "the next slot's run", func() bool {
		n, _ := e.Store.Count(ctx, runtrace.Filter{JobID: runtrace.JobID("slow"), Outcome: runtrace.OutcomeRunning})
		return n == 1
	})
	rs, _ := e.Store.Runs(ctx, runtrace.Filter{JobID: runtrace.JobID("slow"), Outcome: runtrace.OutcomeRunning})
	if len(rs) != 1 || rs[0].ID == id || rs[0].StartedAt.Before(r.FinishedAt) {
		t.Fatalf("running rows %+v; want one, begun at or after %s", rs, r.FinishedAt)
	}
	// And its row names its own process, for the reaper of the next agent.
	testutil.WaitFor(t, 10*time.Second, "the new run's process noted", func() bool {
		r := runByID(t, e, rs[0].ID)
		var d struct {
			Process *proc.Instance `json:"process"`
		}
		return r != nil && json.Unmarshal(r.Detail, &d) == nil && d.Process != nil && d.Process.PID > 0 && d.Process.Start != 0
	})
}

// A noted process whose PID now belongs to another process (the orphan
// ended and the PID was reused) is never signalled: the identity differs, so
// the row says the pid is someone else's and that process runs on.
func TestReaperLeavesReusedPIDAlone(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "slow"
schedule = "@every 1h"
timezone = "UTC"
command = `+jobCommand(0, "", "")+`
`)
	ctx := context.Background()
	id, stranger := orphanRun(t, e)
	// Rewrite the note: the same PID, another start stamp (an earlier
	// process that had that PID).
	inst := stranger.Instance
	inst.Start--
	inst.CreateTime -= 10_000
	// A process that merely got the PID carries no marker of the instance
	// (this one does, being the test's stand-in for it).
	inst.Marker = ""
	// The orphan ended, so its job object (Windows) closed with its last
	// process: a job still open would be that instance's whole tree, and
	// its processes are the instance's, whatever the leader's pid says.
	inst.Job = ""
	dead, err := runtrace.Open(e.sup.Paths.DB(), runtrace.Options{Instance: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Note(ctx, id, map[string]any{"process": inst}); err != nil {
		t.Fatal(err)
	}
	dead.Close()
	startAgent(t, e, Options{})
	r := runByID(t, e, id)
	if r.Verdict() != "failed/abandoned" || !strings.Contains(string(r.Detail), "is now another process, which was not signalled") {
		t.Fatalf("row = %s %s", r.Verdict(), r.Detail)
	}
	if ok, err := proc.Match(stranger.Identity); !ok || err != nil {
		t.Fatalf("the process holding the reused PID was touched: match %v, %v", ok, err)
	}
	select {
	case <-stranger.Done:
		t.Fatalf("the process holding the reused PID exited: %s", stranger.Exit())
	default:
	}
}
