package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

func TestStartStatusStopResume(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m"))
	r := svcctl(t, "start", "web", "--config", cfg)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "web: started (pid ") {
		t.Fatalf("start: %+v", r)
	}
	// The first start creates the ledger: that is no news at a terminal, and
	// never a line in Go's default log format.
	if r.stderr != "" {
		t.Fatalf("a start that created the ledger printed on stderr:\n%s", r.stderr)
	}
	r = svcctl(t, "start", "--all", "--config", cfg)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "web: already-running" {
		t.Fatalf("second start: %+v", r)
	}
	// No agent runs: status says so and exits 1, but shows the service.
	r = svcctl(t, "status", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "agent:  stopped") || !strings.Contains(r.stdout, "web") {
		t.Fatalf("status: %+v", r)
	}
	r = svcctl(t, "stop", "web", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "stopped (") {
		t.Fatalf("stop: %+v", r)
	}
	testutil.WaitFor(t, 5*time.Second, "service down", func() bool { return !testutil.Healthy(addr) })
	r = svcctl(t, "start", "web", "--scheduled", "--json", "--config", cfg)
	var res []struct {
		Outcome runtrace.Outcome
		Reason  runtrace.Reason
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res) != 1 || res[0].Reason != runtrace.ReasonPaused {
		t.Fatalf("scheduled start of a stopped service: %+v (%v)", r, err)
	}
	r = svcctl(t, "resume", "web", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "resumed") {
		t.Fatalf("resume: %+v", r)
	}
	r = svcctl(t, "runs", "--job", "web", "--config", cfg, "--json")
	var rows []runtrace.Run
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("runs: %d rows, %v: %s", len(rows), err, r.stdout)
	}
}

func TestStartFailedExitsOne(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("bad", addr, "10m", "--exit-now", "4"))
	r := svcctl(t, "start", "bad", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "bad: start-failed: new instance exited with code 4") {
		t.Fatalf("%+v", r)
	}
	// why says the answer it holds and, a failure, exits 1 (before: 0).
	r = svcctl(t, "why", "bad", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "failed/start-failed") || !strings.Contains(r.stdout, "answer: did not come up: new instance exited with code 4") ||
		!strings.Contains(r.stdout, "runtime.prev.log") {
		t.Fatalf("why: %+v", r)
	}
}

func TestTwentyConcurrentStartsSpawnOne(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m", "--startup-delay", "300ms"))
	var wg sync.WaitGroup
	outs := make([]result, 20)
	for i := range outs {
		wg.Go(func() { outs[i] = svcctl(t, "start", "web", "--config", cfg) })
	}
	wg.Wait()
	started := 0
	for _, o := range outs {
		switch {
		case strings.HasPrefix(o.stdout, "web: started"):
			started++
		case strings.TrimSpace(o.stdout) == "web: already-running":
		default:
			t.Errorf("unexpected: %+v", o)
		}
	}
	if started != 1 {
		t.Fatalf("%d processes started, want exactly 1", started)
	}
	if n := countExe(testsvcBin, addr); n != 1 {
		t.Fatalf("%d testsvc processes on %s, want 1", n, addr)
	}
}

// countExe counts live processes running exe with addr on their command line.
func countExe(exe, addr string) int { return len(testutil.Running(exe, addr)) }

func TestConfigErrorExitsTwo(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.toml")
	os.WriteFile(cfg, []byte("[agent]\nlog_level = \"loud\"\n"), 0o600)
	r := svcctl(t, "config", "check", "--config", cfg)
	if r.code != 2 || !strings.Contains(r.stderr, "bad.toml:2") || !strings.Contains(r.stderr, "log_level") {
		t.Fatalf("%+v", r)
	}
	r = svcctl(t, "start", "--config", cfg)
	if r.code != 2 {
		t.Fatalf("usage error: %+v", r)
	}
}

// startAgentProcess runs `svc-ctl agent` as a real process.
func startAgentProcess(t *testing.T, cfg string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(svcctlBin, "agent", "--config", cfg, "--max-stagger", "100ms")
	var errb strings.Builder
	cmd.Stderr = &errb
	// A killed agent's Wait waits for its stderr copy, which a process that
	// inherited the pipe could hold open: bounded, so a test reports that
	// rather than hanging its binary.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState != nil {
			return
		}
		// Asked to stop first, as a person or the OS would: a SIGKILL
		// between a spawn and the write of its pid file leaves an instance
		// no record names (noLeakedServices fails the test on it). An agent
		// still draining after 3 s is killed.
		askToStop(cmd.Process)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return cmd, &errb
}

func openStore(t *testing.T, state string) *runtrace.Store {
	t.Helper()
	var st *runtrace.Store
	testutil.WaitFor(t, 10*time.Second, "ledger", func() bool {
		var err error
		if _, err = os.Stat(filepath.Join(state, "svc-ctl.db")); err != nil {
			return false
		}
		st, err = runtrace.Open(filepath.Join(state, "svc-ctl.db"), runtrace.Options{Logger: quiet})
		return err == nil
	})
	t.Cleanup(func() { st.Close() })
	return st
}

// A second agent on the same state dir is refused: a check that said no
// (exit 1, naming the running one), not a usage error.
func TestSecondAgentIsRefused(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	first, _ := startAgentProcess(t, cfg)
	testutil.WaitFor(t, 10*time.Second, "agent.pid", func() bool {
		_, err := os.Stat(filepath.Join(state, "agent.pid"))
		return err == nil
	})
	r := svcctl(t, "agent", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stderr, "already running") || !strings.Contains(r.stderr, "pid "+strconv.Itoa(first.Process.Pid)) ||
		strings.Contains(r.stderr, "--help") {
		t.Fatalf("%+v", r)
	}
}

// sampleArgs are arguments each privileged verb accepts, for the test
// below; a trustRun verb without an entry fails it.
var sampleArgs = map[string][]string{
	"agent": {}, "start": {"web"}, "stop": {"web"}, "restart": {"web"}, "drill": {"web"},
	"exec": {"x", "--", "/bin/true"}, "run": {"x"}, "pause": {"web"}, "resume": {"web"}, "reload": {},
	"ui": {"--listen", "127.0.0.1:0"}, "notify test": {},
}

// TestPrivilegedRefusesWritableConfig: every command declared trustRun,
// found by walking the command tree, refuses a config others can write
// before it starts, stops or creates anything.
func TestPrivilegedRefusesWritableConfig(t *testing.T) {
	if !privileged() {
		t.Skip("the permission check applies when running privileged (root, an elevated token)")
	}
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "10m"))
	fix := writableByOthers(t, cfg)
	for path, c := range runnable(newRootCommand(&globals{stdout: io.Discard, stderr: io.Discard})) {
		if c.Annotations[trustKey] != trustRun {
			continue
		}
		args, ok := sampleArgs[path]
		if !ok {
			t.Errorf("privileged verb %q has no sampleArgs: add it so this test covers it", path)
			continue
		}
		r := svcctl(t, append(append([]string{"--config", cfg}, strings.Fields(path)...), args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, fix) {
			t.Errorf("%s with a world-writable config: %+v", path, r)
		}
	}
	if testutil.Healthy(addr) {
		t.Fatal("a command from a world-writable config ran")
	}
	if _, err := os.Stat(state); err == nil {
		t.Fatal("a command from a world-writable config created the state dir")
	}
}

func TestBadFlagsNameTheFlag(t *testing.T) {
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pause", "web", "--for", "soon"}, `--for: invalid duration "soon"`},
		{[]string{"pause", "web", "--for", "400d"}, `--for: duration "400d" is too long: the longest accepted is 366d`},
		{[]string{"pause", "web", "--for", "0s"}, `--for "0s": want a positive duration`},
		{[]string{"drill", "web", "--timeout", "5"}, `--timeout: invalid duration "5"`},
		{[]string{"runs", "--outcome", "great"}, `--outcome "great"`},
		{[]string{"runs", "--reason", "bored"}, `--reason "bored"`},
		{[]string{"runs", "--since", "yesterdayish"}, `--since "yesterdayish"`},
		{[]string{"schedule", "next", "web", "-n", "0"}, "-n 0"},
		{[]string{"pause", "nosuch"}, "no service or job named nosuch; known: web"},
		{[]string{"start"}, "--all"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"config", "bogus"}, `unknown command "bogus"`},
		{[]string{"schedule"}, "needs a command: [next]"},
		{[]string{"status", "a", "b"}, "accepts at most 1 arg"},
		{[]string{"exec", "backup", "/bin/true"}, "the -- is required"},
		{[]string{"runs", "--bogus"}, "unknown flag: --bogus"},
	} {
		r := svcctl(t, append(c.args, "--config", cfg)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 naming %s", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestUsageErrorPointsAtTheVerbsHelp: a usage error of a verb sends the
// person to that verb's help, not the root's list of commands; an unknown
// name needs no help pointer (the message says what is configured).
func TestUsageErrorPointsAtTheVerbsHelp(t *testing.T) {
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m"))
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"stop"}, "Run 'svc-ctl stop --help' for usage."},
		{[]string{"status", "--bogus"}, "Run 'svc-ctl status --help' for usage."},
		{[]string{"pause", "web", "--for", "soon"}, "Run 'svc-ctl pause --help' for usage."},
		{[]string{"schedule", "next"}, "Run 'svc-ctl schedule next --help' for usage."},
		{[]string{"bogus"}, "Run 'svc-ctl --help' for usage."},
		{[]string{"stop", "nosuch"}, ""},
	} {
		r := svcctl(t, append(c.args, "--config", cfg)...)
		switch {
		case r.code != 2:
			t.Errorf("%v: exit %d, want 2:\n%s", c.args, r.code, r.stderr)
		case c.hint == "" && strings.Contains(r.stderr, "--help"):
			t.Errorf("%v: an unknown name is not a usage problem:\n%s", c.args, r.stderr)
		case c.hint != "" && !strings.Contains(r.stderr, c.hint):
			t.Errorf("%v: want %q in:\n%s", c.args, c.hint, r.stderr)
		}
	}
}

// TestNamesAndAllSaysWhichWasWrong: `start --all web` gave both, and was
// told to give one or the other, not "name one or more services, or pass
// --all".
func TestNamesAndAllSaysWhichWasWrong(t *testing.T) {
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"start", "--all", "web"}, "--all and a name (web) were both given: pass one or the other"},
		{[]string{"restart", "web", "--all"}, "--all and a name (web) were both given: pass one or the other"},
		{[]string{"start"}, "name one or more services, or pass --all"},
	} {
		r := svcctl(t, append(c.args, "--config", cfg)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
}

// TestStatusEnvListsNamesNotValues: `status NAME --env` shows what a start
// gives the service (base, env_file, env), the same whoever runs it, and no
// value.
func TestStatusEnvListsNamesNotValues(t *testing.T) {
	body := strings.Replace(webService("web", testutil.FreeAddr(t), "10m"), "stop_timeout",
		"env = { API_TOKEN = \"tok-5551212\" }\nstop_timeout", 1)
	cfg, _ := writeConfig(t, "", body)
	cmd := exec.Command(svcctlBin, "--config", cfg, "status", "web", "--env")
	cmd.Env = append(os.Environ(), "SVCCTL_FROM_MY_SHELL=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("status --env: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"API_TOKEN", "config", "PATH", homeVar, "base"} {
		if !strings.Contains(s, want) {
			t.Errorf("status --env lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "tok-5551212") || strings.Contains(s, "SVCCTL_FROM_MY_SHELL") {
		t.Errorf("status --env shows a value or the caller's environment:\n%s", s)
	}
}
