package report

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// liveAgentWithFailingLedger makes the state dir look as a running agent
// whose disk is full leaves it: the agent lock held, a heartbeat row a
// minute old (it cannot be renewed), and agent.status renewed just now.
func liveAgentWithFailingLedger(t *testing.T, e *testEnv, updated time.Time) {
	t.Helper()
	now := time.Now().UTC()
	if err := e.store.Beat(context.Background(), runtrace.Heartbeat{InstanceID: "i1", PID: os.Getpid(), Version: "test",
		StartedAt: now.Add(-time.Hour), BeatAt: now.Add(-time.Minute), Mode: runtrace.ModeForeground, Hostname: "h"}); err != nil {
		t.Fatal(err)
	}
	lock, err := state.LockAgent(e.p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.Release)
	sf, err := state.OpenStatusFile(e.p)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	err = sf.Write(state.AgentReport{Instance: "i1", PID: os.Getpid(), StartedAt: now.Add(-time.Hour), UpdatedAt: updated,
		Ledger: runtrace.Health{Cause: runtrace.CauseDiskFull, Since: now.Add(-2 * time.Minute), Dir: e.p.State,
			FreeBytes: 0, Pending: 14, Error: "database or disk is full (13)"}})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStatusSaysDiskFullNotStale: an agent that cannot renew its heartbeat
// because its disk is full is "running (cannot renew its heartbeat: disk
// full)", and the ledger line says since when, why and how much waits.
func TestStatusSaysDiskFullNotStale(t *testing.T) {
	e := newEnv(t, "10m")
	liveAgentWithFailingLedger(t, e, time.Now())
	r, err := BuildStatus(context.Background(), e.cfg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent.State != "running" || r.Agent.Condition != "cannot renew its heartbeat: disk full" ||
		!strings.Contains(r.Agent.Why, "renewed agent.status") {
		t.Fatalf("agent = %+v", r.Agent)
	}
	w := r.Ledger.Writes
	if !r.Ledger.WriteFailing() || w.Cause != runtrace.CauseDiskFull || w.Pending != 14 || w.FreeBytes <= 0 {
		t.Fatalf("ledger = %+v (free space is measured again now: this disk is not full)", w)
	}
	if r.Healthy() {
		t.Error("status exits 0 while the ledger refuses writes")
	}
}

// TestStatusStaleWhenReportIsOld: agent.status not renewed within three
// heartbeats proves nothing: the agent is stale, as before.
func TestStatusStaleWhenReportIsOld(t *testing.T) {
	e := newEnv(t, "10m")
	liveAgentWithFailingLedger(t, e, time.Now().Add(-time.Minute))
	r, err := BuildStatus(context.Background(), e.cfg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if r.Agent.State != "stale" || r.Agent.Condition != "" || r.Ledger.Writes != nil {
		t.Fatalf("agent = %+v, ledger writes %+v", r.Agent, r.Ledger.Writes)
	}
}

// TestVerifyNamesTheCause: every check verify fails while the disk is full
// says so, and the ledger check says since when and what waits.
func TestVerifyNamesTheCause(t *testing.T) {
	e := newEnv(t, "10m")
	liveAgentWithFailingLedger(t, e, time.Now())
	r := Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now(), BootTime: time.Now().Add(-2 * time.Hour), Install: installed})
	c := check(t, r, checkLedgerWrites)
	if c.Status != Fail || !strings.Contains(c.Evidence, "WRITE FAILING since") || !strings.Contains(c.Evidence, "14 rows waiting") {
		t.Errorf("ledger writable: %+v", c)
	}
	failed := 0
	for _, c := range r.Checks {
		if c.Status == Fail && writtenEvidence(c.Name) {
			failed++
			if !strings.Contains(c.Evidence, "cause: the agent") || !strings.Contains(c.Evidence, ": disk full") {
				t.Errorf("%s fails without naming the cause: %s", c.Name, c.Evidence)
			}
		}
	}
	if hb := check(t, r, "heartbeat fresh"); hb.Status != Fail || failed < 2 {
		t.Errorf("heartbeat: %+v; %d failed checks, want the heartbeat and watchdog.last.json at least", hb, failed)
	}
}
