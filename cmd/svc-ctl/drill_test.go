package main

import (
	"regexp"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestDrillSaysWhatItKilled: drill's first line counts the processes it
// killed (one process, not "1 processes") and names the pid the instance was
// started as — for a launcher that pid is long gone, so it must not read as
// the pid that was killed.
func TestDrillSaysWhatItKilled(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1s"))
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 30*time.Second, "web healthy under the agent", func() bool { return testutil.Healthy(addr) })
	r := svcctl(t, "drill", "web", "--config", cfg)
	if r.code != 0 {
		t.Fatalf("drill: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^killed web \(1 process of the instance started as pid \d+\) at `).MatchString(r.stdout) {
		t.Errorf("drill's first line:\n%s", r.stdout)
	}
}
