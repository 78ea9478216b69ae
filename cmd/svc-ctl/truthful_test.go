package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// A CLI that tells the truth: each test is an answer that once said more
// (or other) than the record holds.

// svcctlEnv runs svc-ctl with extra environment (TZ).
func svcctlEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(svcctlBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run svc-ctl %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

const pullJob = `
[[job]]
name = "pull"
schedule = "@every 1h"
timezone = "UTC"
external = true
timeout = "1s"
`

// TestReadOnlyVerbsWorkWithBrokenConfig: with the config file broken,
// status, runs, why, missing, logs and snapshot say what is broken and then
// answer from the state dir; start, which acts, refuses.
func TestReadOnlyVerbsWorkWithBrokenConfig(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	good, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(good, []byte("\n[[service]]\nname = \"half\nwritten\n")...), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status"}, "config: BROKEN: "},
		{[]string{"runs"}, "watchdog:web"},
		{[]string{"why", "web"}, "ok/started"},
		{[]string{"missing"}, ""},
		{[]string{"logs", "web"}, "listening on " + addr},
		{[]string{"snapshot", "web"}, "reason"},
	} {
		r := svcctl(t, append(c.args, "--config", cfg)...)
		if r.code == 2 || !strings.Contains(r.stderr, "the config does not load") || !strings.Contains(r.stderr, "answering from the state dir") ||
			!strings.Contains(r.stdout, c.want) {
			t.Errorf("%v with a broken config: %+v", c.args, r)
		}
	}
	if r := svcctl(t, "status", "web", "--config", cfg); !strings.Contains(r.stdout, "web") || r.code != 1 {
		t.Errorf("status web with a broken config: %+v", r)
	}
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 2 || strings.Contains(r.stderr, "answering from the state dir") {
		t.Errorf("start with a broken config must refuse: %+v", r)
	}
}

// TestUnknownNameSaysWhatIsKnown: every verb given a name the config does
// not have says so in one wording, names what it has, and exits 2.
func TestUnknownNameSaysWhatIsKnown(t *testing.T) {
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m")+pullJob)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "--job", "nosuch"}, "no service or job named nosuch; known: web, pull"},
		{[]string{"pause", "nosuch"}, "no service or job named nosuch; known: web, pull"},
		{[]string{"resume", "nosuch"}, "no service or job named nosuch; known: web, pull"},
		{[]string{"logs", "nosuch"}, "no service or job named nosuch; known: web, pull, agent"},
		{[]string{"why", "nosuch"}, "no service or job named nosuch; known: web, pull"},
		{[]string{"status", "nosuch"}, "no service or job named nosuch; known: web, pull"},
		{[]string{"snapshot", "nosuch"}, "no service named nosuch; known: web"},
		{[]string{"stop", "nosuch"}, "no service named nosuch; known: web"},
		{[]string{"restart", "nosuch"}, "no service named nosuch; known: web"},
		{[]string{"schedule", "next", "nosuch"}, "no job named nosuch; known: pull"},
	} {
		r := svcctl(t, append(c.args, "--config", cfg)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestRunsShowsCauseTimeoutAndRunning: runs has a CAUSE column that is
// never cut, a failed/timeout row says its timeout, and a run in flight
// reads "running for".
func TestRunsShowsCauseTimeoutAndRunning(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m")+pullJob)
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	if r := svcctl(t, "exec", "pull", "--config", cfg, "--", testsvcBin, "--exit-now", "0", "--sleep", "5s"); r.code != 124 {
		t.Fatalf("a job past its timeout: %+v", r)
	}
	long := exec.Command(svcctlBin, "exec", "pull", "--config", cfg, "--", testsvcBin, "--exit-now", "0", "--sleep", "900ms")
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	var r result
	testutil.WaitFor(t, 5*time.Second, "a run in flight", func() bool {
		r = svcctl(t, "runs", "--config", cfg)
		return strings.Contains(r.stdout, "running for ")
	})
	long.Wait()
	if !strings.Contains(r.stdout, "CAUSE") || !strings.Contains(r.stdout, "unhealthy: http: ") {
		t.Fatalf("runs lacks the cause:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "ran past its timeout 1s") {
		t.Fatalf("runs does not say the timeout:\n%s", r.stdout)
	}
}

// TestSnapshotNeverSaysMinusOneMs: a snapshot taken before any healthy
// verdict says so in words.
func TestSnapshotNeverSaysMinusOneMs(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m"))
	svcctl(t, "start", "web", "--config", cfg)
	r := svcctl(t, "snapshot", "web", "--config", cfg)
	if r.code != 0 || strings.Contains(r.stdout, "-1 ms") || !strings.Contains(r.stdout, "no healthy verdict recorded before it") {
		t.Fatalf("snapshot: %+v", r)
	}
}

// TestOneTimeFormat: every time a person reads is local with its offset,
// to the second ("2026-11-29 09:30:00+08:00"), or UTC with --utc
// ("2026-11-29 01:30:00Z"); never a zone abbreviation.
func TestOneTimeFormat(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("TZ does not set the local zone on Windows")
	}
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m")+pullJob)
	svcctl(t, "start", "web", "--config", cfg)
	svcctl(t, "exec", "pull", "--config", cfg, "--", testsvcBin, "--exit-now", "0")
	local := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+08:00`)
	utc := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ`)
	abbrev := regexp.MustCompile(`\d\d:\d\d(:\d\d)? (CST|UTC|MST|[A-Z]{3,4})\b`)
	tz := []string{"TZ=Asia/Shanghai"}
	for _, args := range [][]string{{"runs"}, {"why", "web"}, {"status", "web"}, {"snapshot", "web"}, {"status", "pull"}} {
		r := svcctlEnv(t, tz, append(args, "--config", cfg)...)
		if !local.MatchString(r.stdout) || abbrev.MatchString(r.stdout) {
			t.Errorf("%v: want local times with offset, no zone names:\n%s", args, r.stdout)
		}
		r = svcctlEnv(t, tz, append(args, "--utc", "--config", cfg)...)
		if r.code == 2 || !utc.MatchString(r.stdout) || local.MatchString(r.stdout) {
			t.Errorf("%v --utc: want UTC times:\n%s%s", args, r.stdout, r.stderr)
		}
	}
}

// TestVersionJSON: version --json is machine-readable.
func TestVersionJSON(t *testing.T) {
	r := svcctl(t, "version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Version == "" || v.OS != runtime.GOOS || v.Go == "" {
		t.Fatalf("version --json: %+v (%v)", r, err)
	}
}

// TestCompletionOffersNames: shell completion (cobra's __complete, which
// every shell's script calls) offers the config's services and jobs where a
// verb takes one, and the completion scripts are printed.
func TestCompletionOffersNames(t *testing.T) {
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m")+pullJob)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"restart", ""}, []string{"web"}},
		{[]string{"pause", ""}, []string{"web", "pull"}},
		{[]string{"logs", ""}, []string{"web", "pull", "agent"}},
		{[]string{"schedule", "next", ""}, []string{"pull"}},
		{[]string{"runs", "--job", ""}, []string{"web", "pull", "agent"}},
	} {
		r := svcctl(t, append([]string{"__complete", "--config", cfg}, c.args...)...)
		got := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(got) != len(c.want)+1 || fmt.Sprint(got[:len(c.want)]) != fmt.Sprint(c.want) {
			t.Errorf("complete %v: %q, want %v", c.args, got, c.want)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if r := svcctl(t, "completion", sh); r.code != 0 || len(r.stdout) < 100 {
			t.Errorf("completion %s: %+v", sh, r.code)
		}
	}
}
