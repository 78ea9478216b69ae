//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// The agent's answers to SIGTERM: a drain that lets a slow cycle finish, a
// drain_timeout that interrupts it, and a crash reported once by the agents
// stopped after it.

func slowProbeService(name, seconds string) string {
	return `
[[service]]
name = "` + name + `"
command = ["/bin/sleep", "600"]
interval = "1h"
  [service.health]
  exec = ["/bin/sleep", "` + seconds + `"]
  timeout = "10s"
  confirm = "0s"
`
}

func waitRunning(t *testing.T, st *runtrace.Store, job string) {
	t.Helper()
	testutil.WaitFor(t, 40*time.Second, "a cycle in progress", func() bool {
		n, _ := st.Count(context.Background(), runtrace.Filter{JobID: job, Outcome: runtrace.OutcomeRunning})
		return n == 1
	})
}

func TestAgentSIGTERMWaitsForSlowProbe(t *testing.T) {
	cfg, state := writeConfig(t, `drain_timeout = "8s"`, slowProbeService("slow", "2"))
	cmd, errb := startAgentProcess(t, cfg)
	st := openStore(t, state)
	waitRunning(t, st, "watchdog:slow")
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent exit: %v\n%s", err, errb)
	}
	rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:slow"})
	if len(rs) != 1 || rs[0].Outcome != runtrace.OutcomeOK {
		t.Fatalf("the in-flight cycle was not finished: %+v", rs)
	}
	if hb, _ := st.Heartbeats(context.Background()); len(hb) != 0 {
		t.Fatalf("heartbeat left: %+v", hb)
	}
}

func TestAgentDrainTimeoutInterrupts(t *testing.T) {
	cfg, state := writeConfig(t, `drain_timeout = "500ms"`, slowProbeService("slow", "4"))
	cmd, errb := startAgentProcess(t, cfg)
	st := openStore(t, state)
	waitRunning(t, st, "watchdog:slow")
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent exit: %v\n%s", err, errb)
	}
	rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:slow"})
	if len(rs) != 1 || rs[0].Reason != runtrace.ReasonInterrupted {
		t.Fatalf("want failed/interrupted, got %+v", rs)
	}
}

func TestFatalCrashIsReportedOnce(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	// The test builds its own crashing agent: the shipped binary has no way to crash on purpose.
	crasher, err := testutil.GoBuild(t.TempDir(), "./cmd/svc-ctl/testdata/crashagent")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(crasher, "--config", cfg).Run(); err == nil {
		t.Fatal("the crashing agent exited 0")
	}
	b, _ := os.ReadFile(filepath.Join(state, "crash.log"))
	if !strings.Contains(string(b), "deliberate fatal crash") || !strings.Contains(string(b), "goroutine") {
		t.Fatalf("crash.log does not hold the crash: %q", b)
	}
	if r := svcctl(t, "verify", "--config", cfg); r.code != 1 || !strings.Contains(r.stdout, "no unread crash.log") {
		t.Fatalf("verify does not fail on the crash: %+v", r)
	}
	for i := 0; i < 2; i++ {
		cmd, errb := startAgentProcess(t, cfg)
		st := openStore(t, state)
		testutil.WaitFor(t, 10*time.Second, "startup row", func() bool {
			n, _ := st.Count(context.Background(), runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonStarted})
			return n == i+2 // the crashed agent wrote the first
		})
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("agent %d: %v\n%s", i, err, errb)
		}
	}
	st := openStore(t, state)
	rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonPanic})
	if len(rs) != 1 || !strings.Contains(string(rs[0].Detail), "previous_agent_crashed") {
		t.Fatalf("want exactly one report of the crash, got %+v", rs)
	}
}

// homeVar is the base environment's home directory variable.
const homeVar = "HOME"

// privileged: the config permission check applies (root).
func privileged() bool { return os.Geteuid() == 0 }

// writableByOthers makes path writable by everyone and returns the fix the
// refusal must name.
func writableByOthers(t *testing.T, path string) string {
	t.Helper()
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	return "chmod go-w " + path
}

// askToStop asks a process to stop: SIGTERM.
func askToStop(p *os.Process) { p.Signal(syscall.SIGTERM) }
