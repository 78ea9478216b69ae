package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestReloadCommand: `svc-ctl reload` asks the running agent to re-read its
// file and prints the agent's own answer: what it added, and for an
// invalid file its refusal (exit 2), the config in force staying. status
// and verify warn while the file on disk is not the one the agent runs.
func TestReloadCommand(t *testing.T) {
	web, api := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", web, "1h"))
	if r := svcctl(t, "reload", "--config", cfg); r.code != 1 || !strings.Contains(r.stderr, "no agent is running") {
		t.Fatalf("reload without an agent: %+v", r)
	}
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool { return testutil.Healthy(web) })
	head, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(string(head) + webService("api", api, "1h"))
	r := svcctl(t, "status", "--config", cfg)
	if !strings.Contains(r.stdout, "config: WARN: ") || !strings.Contains(r.stdout, "'svc-ctl reload' applies it") {
		t.Fatalf("status does not warn of the changed file:\n%s", r.stdout)
	}
	r = svcctl(t, "verify", "--config", cfg)
	if !strings.Contains(r.stdout, "config in force") || !strings.Contains(r.stdout, "changed") {
		t.Fatalf("verify does not warn of the changed file:\n%s", r.stdout)
	}
	r = svcctl(t, "reload", "--config", cfg)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "reloaded: services added: api; 1 unchanged" {
		t.Fatalf("reload: %+v", r)
	}
	testutil.WaitFor(t, 20*time.Second, "api started by the reloaded agent", func() bool { return testutil.Healthy(api) })
	if r := svcctl(t, "status", "--config", cfg); strings.Contains(r.stdout, "config: WARN") {
		t.Fatalf("status warns after the reload:\n%s", r.stdout)
	}

	write(string(head) + "\n[[service]]\nname = \"broken\"\ncommand = []\n")
	r = svcctl(t, "reload", "--config", cfg)
	if r.code != 2 || !strings.HasPrefix(r.stdout, "config-invalid: the agent refused ") || !strings.Contains(r.stdout, "empty command") ||
		!strings.Contains(r.stdout, "stays in force") {
		t.Fatalf("reload of an invalid file: %+v", r)
	}
	if !testutil.Healthy(api) || !testutil.Healthy(web) {
		t.Fatal("the services of the config in force stopped answering after a refused reload")
	}
}

// TestReloadAllowMissingInclude: a reload of a file whose include matched a
// file when the agent loaded it and matches none now (a deploy caught
// between emptying conf.d and filling it) is refused, exit 2, naming the
// include and the flag, and the included service runs on; `svc-ctl reload
// --allow-missing-include` takes the same file, and the service is removed
// (stopped, as any removal).
func TestReloadAllowMissingInclude(t *testing.T) {
	web, api := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", web, "1h"))
	body, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append([]byte("include = [\"conf.d/*.toml\"]\n"), body...), 0o600); err != nil {
		t.Fatal(err)
	}
	confd := filepath.Join(filepath.Dir(cfg), "conf.d")
	if err := os.MkdirAll(confd, 0o700); err != nil {
		t.Fatal(err)
	}
	inc := filepath.Join(confd, "api.toml")
	if err := os.WriteFile(inc, []byte(webService("api", api, "1h")), 0o600); err != nil {
		t.Fatal(err)
	}
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web and the included api", func() bool { return testutil.Healthy(web) && testutil.Healthy(api) })

	if err := os.Remove(inc); err != nil {
		t.Fatal(err)
	}
	r := svcctl(t, "reload", "--config", cfg)
	if r.code != 2 || !strings.Contains(r.stdout, `include "conf.d/*.toml" matched 1 file(s)`) || !strings.Contains(r.stdout, "--allow-missing-include") {
		t.Fatalf("reload with an emptied include: %+v", r)
	}
	if !testutil.Healthy(api) {
		t.Fatal("the refused reload stopped the included service")
	}
	r = svcctl(t, "reload", "--allow-missing-include", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "services removed: api") || !strings.Contains(r.stdout, "\n  api: stopped (") {
		t.Fatalf("reload --allow-missing-include: %+v", r)
	}
	testutil.WaitFor(t, 10*time.Second, "api gone", func() bool { return !testutil.Healthy(api) })
}
