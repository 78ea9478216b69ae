package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"svcctl/contrib"
	"svcctl/internal/testutil"
)

// TestSeveralNamesAndAll: stop, pause and resume take several names or
// --all, as start and restart do (before: exactly one NAME).
func TestSeveralNamesAndAll(t *testing.T) {
	web, api := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", web, "1h")+webService("api", api, "1h")+jobBlock("tick", "", "--exit-now", "0"))
	if r := svcctl(t, "start", "--all", "--config", cfg); r.code != 0 {
		t.Fatalf("start --all: %+v", r)
	}
	if r := svcctl(t, "pause", "web", "tick", "--for", "1h", "--config", cfg); r.code != 0 || strings.Count(r.stdout, ": paused until ") != 2 {
		t.Errorf("pause web tick: %+v", r)
	}
	if r := svcctl(t, "resume", "--all", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "web: resumed") || !strings.Contains(r.stdout, "tick: resumed") ||
		!strings.Contains(r.stdout, "api: was not paused") {
		t.Errorf("resume --all: %+v", r)
	}
	if r := svcctl(t, "stop", "web", "api", "--config", cfg); r.code != 0 || !strings.Contains(r.stdout, "web: stopped (") || !strings.Contains(r.stdout, "api: stopped (") {
		t.Errorf("stop web api: %+v", r)
	}
	if testutil.Healthy(web) || testutil.Healthy(api) {
		t.Error("a service still answers after stop web api")
	}
	if r := svcctl(t, "stop", "web", "nosuch", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "no service named nosuch") {
		t.Errorf("stop with an unknown name among them: %+v; want nothing done, exit 2", r)
	}
	if r := svcctl(t, "stop", "--config", cfg); r.code != 2 {
		t.Errorf("stop with no name: %+v", r)
	}
}

// TestVersionInitCompletion: --version as people type it; `init` writes a
// starter config a binary-only user can start from (and never over an
// existing one), `init --example` the full commented example; channel
// names complete.
func TestVersionInitCompletion(t *testing.T) {
	if r := svcctl(t, "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "svc-ctl ") {
		t.Errorf("--version: %+v", r)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "etc", "svc-ctl.toml")
	r := svcctl(t, "init", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+cfg) {
		t.Fatalf("init: %+v", r)
	}
	// Windows has no group/other bits (a writable file is 0666 there; its
	// ACL is what the trust rule checks)
	if fi, err := os.Stat(cfg); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0) {
		t.Fatalf("the starter: %v %v", fi, err)
	}
	if r := svcctl(t, "config", "check", "--config", cfg); r.code != 0 {
		t.Errorf("the starter does not load: %+v", r)
	}
	if r := svcctl(t, "init", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("init over an existing file: %+v", r)
	}
	if r := svcctl(t, "init", "--example", "--print"); r.code != 0 || r.stdout != contrib.ExampleConfig {
		t.Errorf("init --example --print is not contrib/svc-ctl.example.toml")
	}

	withChannels, _ := writeConfig(t, "", "\n[[notify]]\nname = \"phone\"\nkind = \"ntfy\"\nurl = \"https://ntfy.example/x\"\n"+
		"\n[[notify]]\nname = \"desk\"\nkind = \"ntfy\"\nurl = \"https://ntfy.example/y\"\n")
	r = svcctl(t, "__complete", "notify", "test", "--config", withChannels, "")
	if !strings.Contains(r.stdout, "phone\n") || !strings.Contains(r.stdout, "desk\n") {
		t.Errorf("completion of notify test: %+v", r)
	}
}

// TestRunsHideRoutineAndFollow: --hide-routine leaves the healthy cycles
// out; -f prints each new row as it finishes (before: neither existed).
func TestRunsHideRoutineAndFollow(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h")+jobBlock("tick", "", "--exit-now", "0"))
	svcctl(t, "start", "web", "--config", cfg)
	svcctl(t, "start", "web", "--config", cfg)
	if r := svcctl(t, "runs", "--config", cfg); !strings.Contains(r.stdout, "ok/already-running") {
		t.Fatalf("runs: %+v", r)
	}
	if r := svcctl(t, "runs", "--hide-routine", "--config", cfg); strings.Contains(r.stdout, "ok/already-running") || !strings.Contains(r.stdout, "ok/started") {
		t.Errorf("runs --hide-routine: %+v", r)
	}
	follow := startCLI(t, "runs", "-f", "--config", cfg)
	testutil.WaitFor(t, 10*time.Second, "the first rows", func() bool { return strings.Contains(follow.stdout.String(), "ok/started") })
	svcctl(t, "run", "tick", "--config", cfg)
	testutil.WaitFor(t, 10*time.Second, "the new row", func() bool { return strings.Contains(follow.stdout.String(), "job:tick") })
}

// TestLogsAll: every log at once, each line prefixed with its name
// (pm2 logs); before, one NAME at a time.
func TestLogsAll(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h")+jobBlock("tick", "", "--say", "tick ran", "--exit-now", "0"))
	svcctl(t, "start", "web", "--config", cfg)
	svcctl(t, "run", "tick", "--config", cfg)
	r := svcctl(t, "logs", "--all", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "tick  | tick ran") || !strings.Contains(r.stdout, "web   | testsvc: pid ") {
		t.Errorf("logs --all: %+v", r)
	}
	if r := svcctl(t, "logs", "--all", "web", "--config", cfg); r.code != 2 {
		t.Errorf("logs --all web: %+v", r)
	}
}
