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
	"svcctl/snapshot"
)

// cause reads a row's detail `cause`.
func cause(r runtrace.Run) string {
	var d struct {
		Cause string `json:"cause"`
	}
	json.Unmarshal(r.Detail, &d)
	return d.Cause
}

// verdicts lists rows as "#ID trigger outcome/reason (cause)", for failures.
func verdicts(rows []runtrace.Run) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("#%d %s %s (%s)", r.ID, r.Trigger, r.Verdict(), cause(r)))
	}
	return out
}

func latestRow(t *testing.T, st *runtrace.Store, job string) runtrace.Run {
	t.Helper()
	r, err := st.Latest(context.Background(), job)
	if err != nil || r == nil {
		t.Fatalf("latest row of %s: %v, %v", job, r, err)
	}
	return *r
}

// TestRestartKeepsEvidenceAndRecordsManual: `svc-ctl restart` replaces a
// healthy service: a new instance, the old one stopped, its output moved to
// runtime.prev.log, a snapshot whose reason is manual, and an ok/restarted
// row with cause manual.
func TestRestartKeepsEvidenceAndRecordsManual(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "10m"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	old, err := proc.ReadPidFile(filepath.Join(state, "services", "web", "pid"))
	if err != nil {
		t.Fatal(err)
	}
	r := svcctl(t, "restart", "web", "--config", cfg)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "web: restarted (pid ") || !strings.Contains(r.stdout, "before: pid ") {
		t.Fatalf("restart: %+v", r)
	}
	now, err := proc.ReadPidFile(filepath.Join(state, "services", "web", "pid"))
	if err != nil || now.PID == old.PID {
		t.Fatalf("pid file after restart: %+v (%v), old %d", now, err, old.PID)
	}
	if ok, _ := proc.Match(old); ok {
		t.Fatal("the old instance still runs")
	}
	if !testutil.Healthy(addr) {
		t.Fatal("not healthy after restart")
	}
	prev, err := os.ReadFile(filepath.Join(state, "services", "web", "runtime.prev.log"))
	if err != nil || !strings.Contains(string(prev), "starting on "+addr) {
		t.Fatalf("runtime.prev.log does not hold the old instance's output: %q, %v", prev, err)
	}
	es, _, err := snapshot.Read(filepath.Join(state, "services", "web", "snapshots.jsonl"), 5)
	if err != nil || len(es) != 2 || es[0].Reason != "manual" || !strings.HasPrefix(es[1].Reason, "unhealthy: ") {
		t.Fatalf("snapshots: %+v, %v; want the start's (unhealthy: ...), then the restart's (manual)", es, err)
	}
	st := openStore(t, state)
	row := latestRow(t, st, "watchdog:web")
	if row.Outcome != runtrace.OutcomeOK || row.Reason != runtrace.ReasonRestarted || row.Trigger != runtrace.TriggerManual || cause(row) != "manual" {
		t.Fatalf("row: %s trigger %s cause %q", row.Verdict(), row.Trigger, cause(row))
	}
	if es[0].RunID != row.ID {
		t.Fatalf("snapshot names run %d, the restart is run %d", es[0].RunID, row.ID)
	}
}

// TestRestartClearsPause: a restart states that the person wants the
// service running, as start does: a pause (even a stop's) ends.
func TestRestartClearsPause(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "10m"))
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("stop: %+v", r)
	}
	r := svcctl(t, "restart", "--all", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "web: restarted") || !strings.Contains(r.stdout, "none recorded") {
		t.Fatalf("restart of a stopped service: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(state, "services", "web", "paused")); !os.IsNotExist(err) {
		t.Fatalf("pause sentinel still there: %v", err)
	}
	if r := svcctl(t, "restart", "nosuch", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "no service named nosuch; known: web") {
		t.Fatalf("restart nosuch: %+v", r)
	}
}

// TestRestartUnderRunningAgent: a restart by hand while the agent runs is
// one new instance; the agent neither starts another nor records the old
// one's exit as lock-held, and it watches the new instance: killed, it is
// back through the fast path (the interval is an hour).
func TestRestartUnderRunningAgent(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	startAgentProcess(t, cfg)
	st := openStore(t, state)
	testutil.WaitFor(t, 20*time.Second, "the agent starts web", func() bool { return testutil.Healthy(addr) })
	r := svcctl(t, "restart", "web", "--config", cfg)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "web: restarted") {
		t.Fatalf("restart: %+v", r)
	}
	restarted := latestRow(t, st, "watchdog:web")
	pid := func() int32 {
		id, _ := proc.ReadPidFile(filepath.Join(state, "services", "web", "pid"))
		return id.PID
	}
	newPID := pid()
	testutil.KillPID(t, int(newPID))
	var rows []runtrace.Run
	testutil.WaitForSaying(t, 20*time.Second, "the agent restores the killed instance", func() bool {
		var err error
		rows, err = st.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:web", Since: restarted.StartedAt})
		return err == nil && len(rows) > 0 && rows[0].Reason == runtrace.ReasonStarted && pid() != newPID && testutil.Healthy(addr)
	}, func() string { return fmt.Sprintf("rows %v, pid %d (killed %d)", verdicts(rows), pid(), newPID) })
	if n := countExe(testsvcBin, addr); n != 1 {
		t.Fatalf("%d instances of web, want 1", n)
	}
	for _, row := range rows {
		if row.Reason == runtrace.ReasonLockHeld {
			t.Errorf("row %d: %s: the agent raced the restart", row.ID, row.Verdict())
		}
	}
	if rows[0].Trigger != runtrace.TriggerEvent || !strings.HasPrefix(cause(rows[0]), "exited: ") {
		t.Fatalf("the restore: trigger %s, cause %q; want event, exited: ...", rows[0].Trigger, cause(rows[0]))
	}
}
