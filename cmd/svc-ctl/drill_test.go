package main

import (
	"context"
	"errors"
	"net"
	"regexp"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
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
	why := "the health port"
	if !osNamesPortOwners(t) {
		why = "the leader" // nothing names who serves: the instance's leader is the one
	}
	if !regexp.MustCompile(`(?m)^killed web: pid \d+ \S+ \(` + why + `; 1 process in the instance started as pid \d+\) at `).MatchString(r.stdout) {
		t.Errorf("drill's first line:\n%s", r.stdout)
	}
}

// osNamesPortOwners: the OS names the process listening on a port of this
// one's (Wine's socket table names none: pid 0 for every socket).
func osNamesPortOwners(t *testing.T) bool {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = proc.PortHolder(context.Background(), uint32(l.Addr().(*net.TCPAddr).Port))
	return !errors.Is(err, proc.ErrOwnerUnknown)
}
