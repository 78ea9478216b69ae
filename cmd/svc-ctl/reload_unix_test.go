//go:build unix

package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
)

// TestSIGHUPReloads: a bare SIGHUP (no request) is a reload too; the agent
// records it and keeps running.
func TestSIGHUPReloads(t *testing.T) {
	web := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", web, "1h"))
	agent, _ := startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool { return testutil.Healthy(web) })
	if err := agent.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "a reloaded row", func() bool {
		r := svcctl(t, "runs", "--job", "agent", "--reason", "reloaded", "--config", cfg)
		return strings.Contains(r.stdout, "ok/reloaded") && strings.Contains(r.stdout, "no service or job changed")
	})
	// Alive, not ProcessState: that is set only once Wait returns.
	if !proc.Alive(int32(agent.Process.Pid)) {
		t.Fatal("SIGHUP stopped the agent")
	}
}
