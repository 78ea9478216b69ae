package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// TestWhySaysWhy: `why` prints the answer the row holds, in plain words,
// and exits 1 when the answer is a failure. Before: for a failed job it
// said "the chain broke midway", left the exit code and output "in the
// row's detail", suggested HTTPS_PROXY, and exited 0; for a pause it did
// not say who or until when.
func TestWhySaysWhy(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h")+
		jobBlock("report", "", "--say", "upload refused: 413 payload too large", "--exit-now", "3"))
	svcctl(t, "run", "report", "--config", cfg)
	r := svcctl(t, "why", "report", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "answer: failed: its command exited with code 3") ||
		!strings.Contains(r.stdout, "its last output:\n") || !strings.Contains(r.stdout, "| upload refused: 413 payload too large") {
		t.Errorf("why of a failed job: %+v", r)
	}
	for _, jargon := range []string{"chain broke", "our side", "HTTPS_PROXY", "in the row's detail"} {
		if strings.Contains(r.stdout, jargon) {
			t.Errorf("why says %q:\n%s", jargon, r.stdout)
		}
	}
	id := lastRun(t, cfg, "report").ID
	if r := svcctl(t, "why", "--run", fmt.Sprint(id), "--config", cfg); r.code != 1 || !strings.Contains(r.stdout, fmt.Sprintf("row:    #%d failed/exit-nonzero", id)) {
		t.Errorf("why --run %d: %+v", id, r)
	}
	if r := svcctl(t, "why", "--run", "999999", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "no run #999999") {
		t.Errorf("why --run of an id that is not there: %+v", r)
	}

	if r := svcctl(t, "pause", "web", "--for", "1h", "--reason", "disk swap", "--config", cfg); r.code != 0 {
		t.Fatalf("pause: %+v", r)
	}
	svcctl(t, "start", "web", "--scheduled", "--config", cfg) // the watchdog's cycle: skipped/paused
	r = svcctl(t, "why", "web", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "answer: paused by ") || !strings.Contains(r.stdout, ", until ") || !strings.Contains(r.stdout, ": disk swap") {
		t.Errorf("why of a paused service: %+v; want who, until when and why", r)
	}
}

// TestWhyNamesTheRestartCause: for a restart, why says by whom and its
// cause, and where the evidence kept before it is (before: "our side
// completed (started)", no cause).
func TestWhyNamesTheRestartCause(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool {
		rs := runsOf(t, state, "watchdog:web")
		return len(rs) > 0 && rs[0].Verdict() == "ok/started"
	})
	testutil.KillPID(t, readPIDOf(t, state, "web"))
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(svcctl(t, "runs", "--config", cfg).stdout)
		}
	})
	testutil.WaitFor(t, 20*time.Second, "the restart", func() bool {
		rs := runsOf(t, state, "watchdog:web")
		return len(rs) > 0 && runtrace.RestartBy(rs[0]) != ""
	})
	r := svcctl(t, "why", "web", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "answer: restarted by the watchdog (new pid ") || !strings.Contains(r.stdout, "exited: ") ||
		!strings.Contains(r.stdout, "evidence kept before it (snapshot of ") || !strings.Contains(r.stdout, "snapshots.jsonl") || !strings.Contains(r.stdout, "runtime.prev.log") {
		t.Errorf("why of a restart: %+v", r)
	}
}

// TestWhyAtTakesWhatRunsPrints: --at accepts any time `runs` prints and
// picks the row that covers it. Before, a time copied from `runs` (to the
// second) fell before the row's own start (to the millisecond), and why
// answered for the row before it; a time of day alone was refused.
func TestWhyAtTakesWhatRunsPrints(t *testing.T) {
	cfg, _ := writeConfig(t, "", jobBlock("tick", "", "--exit-now", "0"))
	svcctl(t, "run", "tick", "--config", cfg)
	first := lastRun(t, cfg, "tick")
	// The second run must not start in the first one's second.
	testutil.WaitFor(t, 3*time.Second, "the next second", func() bool { return time.Now().Truncate(time.Second).After(first.StartedAt) })
	svcctl(t, "run", "tick", "--config", cfg)
	second := lastRun(t, cfg, "tick")
	r := svcctl(t, "runs", "--job", "tick", "-n", "1", "--config", cfg)
	printed := ""
	for _, f := range strings.Split(r.stdout, "\n")[1:] {
		if fs := strings.Fields(f); len(fs) > 4 {
			printed = fs[3] + " " + fs[4] // STARTED: "2026-12-01 22:25:03+00:00"
		}
	}
	local := second.StartedAt.Local()
	raw, _ := json.Marshal(second)
	var js struct {
		StartedAt string `json:"started_at"`
	}
	json.Unmarshal(raw, &js)
	for _, at := range []string{printed, local.Format("15:04:05"), js.StartedAt} {
		r := svcctl(t, "why", "tick", "--at", at, "--config", cfg)
		if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("row:    #%d ", second.ID)) {
			t.Errorf("why --at %q (run #%d started %s): %+v", at, second.ID, second.StartedAt.Format(time.RFC3339Nano), r)
		}
	}
}
