//go:build unix

package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// SIGHUP asks for a reload; left to Go's default it would end the agent with
// no drain. The agent re-reads its file (three signals: requests coalesce),
// keeps supervising, and still stops cleanly on SIGTERM afterwards.
func TestAgentSurvivesSIGHUP(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	cmd, errb := startAgentProcess(t, cfg)
	st := openStore(t, state)
	testutil.WaitFor(t, 20*time.Second, "the first cycle", func() bool {
		n, _ := st.Count(context.Background(), runtrace.Filter{JobID: "watchdog:web", Reason: runtrace.ReasonStarted})
		return n == 1
	})
	for i := 0; i < 3; i++ {
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WaitFor(t, 10*time.Second, "the reload's row", func() bool {
		n, _ := st.Count(context.Background(), runtrace.Filter{JobID: runtrace.AgentID, Reason: runtrace.ReasonReloaded})
		return n >= 1
	})
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the agent is gone after SIGHUP: %v\n%s", err, errb)
	}
	// Still supervising: a killed instance comes back.
	old := readPID(t, state, "web")
	syscall.Kill(old, syscall.SIGKILL)
	testutil.WaitFor(t, 20*time.Second, "the service restored after SIGHUP", func() bool {
		n, _ := st.Count(context.Background(), runtrace.Filter{JobID: "watchdog:web", Reason: runtrace.ReasonStarted})
		return n == 2 && testutil.Healthy(addr)
	})
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent exit after SIGHUP then SIGTERM: %v\n%s", err, errb)
	}
	// A clean stop deletes the agent's heartbeat (a killed agent's stays).
	if hb, err := st.Heartbeats(context.Background()); err != nil || len(hb) != 0 {
		t.Fatalf("heartbeats after SIGTERM: %+v, %v; want none (a clean stop deletes its own)", hb, err)
	}
}

// readPID is the pid a service's pid file names (readIdentity's wait).
func readPID(t *testing.T, state, name string) int {
	t.Helper()
	return readPIDOf(t, state, name)
}
