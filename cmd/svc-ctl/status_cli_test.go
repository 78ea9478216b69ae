package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/report"
)

// statusLine is the row of service name in `svc-ctl status`.
func statusLine(t *testing.T, cfg, name string) string {
	t.Helper()
	r := svcctl(t, "status", "--config", cfg)
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	t.Fatalf("no line for %s in status:\n%s", name, r.stdout)
	return ""
}

// TestStatusSaysWhatPeopleMean: one meaning of restart and states as people
// read them. A first start is no restart (before: RESTARTS 24H 1 and an
// amber card on a fresh install); a person's restart is one, counted apart
// from the watchdog's; a person's stop is STATE stopped with its health
// "not checked since the stop" (before: paused, with a stale "http 200");
// CPU and RSS are columns, as in `pm2 ls`.
func TestStatusSaysWhatPeopleMean(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	head := strings.Fields(statusHeader(t, cfg))
	if strings.Join(head, " ") != "SERVICE STATE HEALTH CPU RSS RESTARTS 24H LAST RESTART LAST CYCLE PAUSE" {
		t.Fatalf("status columns: %v", head)
	}
	line := statusLine(t, cfg, "web")
	if !regexp.MustCompile(`\s\d+\.\d%\s+\d+(\.\d)? [KM]iB\s+0\s+-\s`).MatchString(line) {
		t.Errorf("after a first start: %q; want CPU%%, RSS, 0 restarts, no last restart", line)
	}
	if r := svcctl(t, "status", "web", "--config", cfg); !strings.Contains(r.stdout, "(running), 1 process [") {
		t.Errorf("status web does not count in words (before: \"1 process(es)\"):\n%s", r.stdout)
	}
	if r := svcctl(t, "restart", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("restart: %+v", r)
	}
	if line := statusLine(t, cfg, "web"); !strings.Contains(line, "0 (+1 asked for)") || !strings.Contains(line, "ago (person)") {
		t.Errorf("after a person's restart: %q; want 0 by the watchdog, 1 asked for, last by person", line)
	}
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("stop: %+v", r)
	}
	if line := statusLine(t, cfg, "web"); !strings.HasPrefix(strings.Join(strings.Fields(line), " "), "web stopped not checked since the stop - - ") {
		t.Errorf("after a stop: %q; want stopped, not checked since the stop, no CPU or RSS", line)
	}
	r := svcctl(t, "status", "web", "--json", "--config", cfg)
	var rep report.StatusReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Services[0].State != "stopped" || rep.Services[0].Health != report.HealthNotChecked {
		t.Errorf("status --json of a stopped service: %+v, %v", rep.Services, err)
	}
}

func statusHeader(t *testing.T, cfg string) string {
	t.Helper()
	r := svcctl(t, "status", "--config", cfg)
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "SERVICE ") {
			return l
		}
	}
	t.Fatalf("no service table in status:\n%s", r.stdout)
	return ""
}

// TestAgentChecksWhatIsNotRunningAtOnce: services with no live instance
// when the agent starts are checked at once; the random stagger (up to
// 30 s for an interval of an hour) is for the periodic checks of running
// ones. Before, a fresh agent left both down for a random 0-30 s each.
func TestAgentChecksWhatIsNotRunningAtOnce(t *testing.T) {
	a, b := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("a", a, "1h")+webService("b", b, "1h"))
	agent := exec.Command(svcctlBin, "agent", "--config", cfg) // no --max-stagger: the real one
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	testutil.WaitFor(t, 5*time.Second, "both services up", func() bool { return testutil.Healthy(a) && testutil.Healthy(b) })
}

// The starting state reads as when its first check comes.
func TestStateWordsOfStarting(t *testing.T) {
	now := time.Now()
	s := report.ServiceStatus{State: "starting", FirstCheckBy: now.Add(12 * time.Second)}
	if got := stateWords(s, now); got != "starting (first check in ~12s)" {
		t.Errorf("%q", got)
	}
	s.FirstCheckBy = now
	if got := stateWords(s, now); got != "starting (first check now)" {
		t.Errorf("%q", got)
	}
}
