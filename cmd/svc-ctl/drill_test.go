package main

import (
	"regexp"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestDrillSaysWhatItKilled: drill's first line names the process it killed
// (the one that serves, and why it is that one), then counts the instance's
// processes (one process, not "1 processes") and names the pid the instance
// was started as — for a launcher that pid is long gone, so it must not read
// as the pid that was killed.
func TestDrillSaysWhatItKilled(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1s"))
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 30*time.Second, "web healthy under the agent", func() bool { return testutil.Healthy(addr) })
	r := svcctl(t, "drill", "web", "--config", cfg)
	if r.code != 0 {
		t.Fatalf("drill: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^killed web: pid \d+ \S+ \(the health port; 1 process in the instance started as pid \d+\) at `).MatchString(r.stdout) {
		t.Errorf("drill's first line:\n%s", r.stdout)
	}
}
