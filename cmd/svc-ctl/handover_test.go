package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestBrokenFileHandsActionsToTheAgent: a typo in one job's block no longer
// blocks `restart` of an unrelated service. With the file broken, the
// verbs that act (restart, stop, start, pause, resume, run) hand the action
// to the running agent, which still runs the config it loaded, and say
// so. Before, each refused with the config error (exit 2). With no agent
// running there is nothing to hand over to: the error stands.
func TestBrokenFileHandsActionsToTheAgent(t *testing.T) {
	web, api := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", web, "1h")+webService("api", api, "1h")+
		jobBlock("report", "", "--say", "report ran", "--exit-now", "0"))
	agent, _ := startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web and api up", func() bool { return testutil.Healthy(web) && testutil.Healthy(api) })
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n[[job]]\nname = \"typo\"\nschedule = \"@daily\"\ntimezone = \"UTC\"\ncommand = []\n")
	f.Close()

	said := func(r result) bool {
		return strings.Contains(r.stderr, "the config does not load (") && strings.Contains(r.stderr, "still runs the config it loaded before")
	}
	before := readPIDOf(t, state, "web")
	r := svcctl(t, "restart", "web", "--config", cfg)
	if r.code != 0 || !said(r) || !strings.HasPrefix(r.stdout, "web: restarted (pid ") || readPIDOf(t, state, "web") == before {
		t.Fatalf("restart web with a broken file: %+v", r)
	}
	if r := svcctl(t, "stop", "api", "--config", cfg); r.code != 0 || !said(r) || !strings.HasPrefix(r.stdout, "api: stopped (") {
		t.Fatalf("stop api: %+v", r)
	}
	if testutil.Healthy(api) {
		t.Fatal("api still answers after the agent stopped it")
	}
	if r := svcctl(t, "start", "api", "--config", cfg); r.code != 0 || !strings.HasPrefix(r.stdout, "api: started (pid ") {
		t.Fatalf("start api: %+v", r)
	}
	if r := svcctl(t, "pause", "web", "api", "--for", "1h", "--config", cfg); r.code != 0 || strings.Count(r.stdout, ": paused until ") != 2 {
		t.Fatalf("pause web api: %+v", r)
	}
	if r := svcctl(t, "resume", "--all", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "web: resumed") || !strings.Contains(r.stdout, "report: was not paused") {
		t.Fatalf("resume --all: %+v", r)
	}
	if r := svcctl(t, "run", "report", "--config", cfg); r.code != 0 || !said(r) || !strings.Contains(r.stdout, "report ran") {
		t.Fatalf("run report: %+v", r)
	}
	if r := svcctl(t, "restart", "nosuch", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "no service named nosuch") {
		t.Fatalf("restart of a name the agent does not have: %+v", r)
	}

	agent.Process.Kill()
	agent.Wait()
	if r := svcctl(t, "restart", "web", "--config", cfg); r.code != 2 || said(r) || !strings.Contains(r.stderr, "empty command") {
		t.Fatalf("restart with a broken file and no agent: %+v", r)
	}
}
