//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/control"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/state"
)

// TestRestartStopsWholeTree: a service behind a wrapper script that stays
// its parent is two processes; a restart stops both, not only the leader,
// and the new tree is two processes again.
func TestRestartStopsWholeTree(t *testing.T) {
	addr := testutil.FreeAddr(t)
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "run")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\n\"$@\"\necho wrapper: server ended with $?\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(webService("web", addr, "10m"), "command = [", "command = ["+strconv.Quote(wrapper)+", ", 1)
	cfg, state := writeConfig(t, "", body)
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	inst, err := proc.ReadInstance(filepath.Join(state, "services", "web", "pid"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := proc.Members(inst)
	if err != nil || before.Len() != 2 {
		t.Fatalf("tree before: %+v, %v; want wrapper and server", before, err)
	}
	r := svcctl(t, "restart", "web", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "2 processes") {
		t.Fatalf("restart: %+v", r)
	}
	for _, m := range before.Members {
		if ok, _ := proc.Match(m.Identity); ok {
			t.Errorf("pid %d of the old tree still runs", m.PID)
		}
	}
	after, _ := proc.ReadInstance(filepath.Join(state, "services", "web", "pid"))
	testutil.WaitFor(t, 5*time.Second, "the new tree", func() bool {
		tr, err := proc.Members(after)
		return err == nil && tr.Len() == 2
	})
}

// A person's start and restart while the agent runs are handed to it: the
// agent spawns the instance, so its mode is the agent's (on Linux the agent
// is a child subreaper, and a daemon the service forks is re-parented to
// it), and the row names the person who asked. With no agent, the command
// spawns it itself: its mode is plain.
func TestStartAndRestartHandedToTheAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the subreaper is Linux's")
	}
	addr := testutil.FreeAddr(t)
	cfg, stateDir := writeConfig(t, "", webService("web", addr, "1h"))
	pidFile := filepath.Join(stateDir, "services", "web", "pid")
	mode := func() string {
		inst, err := proc.ReadInstance(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		return inst.Mode
	}
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 || mode() != proc.ModePlain {
		t.Fatalf("start with no agent: %+v, mode %q; want started here, plain", r, mode())
	}
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("stop: %+v", r)
	}
	agent, _ := startAgentProcess(t, cfg)
	st := openStore(t, stateDir)
	testutil.WaitFor(t, 20*time.Second, "the agent taking starts and restarts", func() bool {
		a, err := control.Running(state.Paths{State: stateDir})
		return err == nil && a.Takes(control.KindStart) && a.Takes(control.KindRestart)
	})
	for _, verb := range []string{"start", "restart"} {
		r := svcctl(t, verb, "web", "--config", cfg)
		if r.code != 0 || mode() != proc.ModeSubreaper {
			t.Fatalf("%s under the agent: %+v, mode %q; want the agent's instance (subreaper)", verb, r, mode())
		}
		inst, _ := proc.ReadInstance(pidFile)
		// The agent's own child when it spawned it.
		if pi, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", inst.PID)); err != nil ||
			!strings.Contains(string(pi), fmt.Sprintf(") S %d ", agent.Process.Pid)) && !strings.Contains(string(pi), fmt.Sprintf(") R %d ", agent.Process.Pid)) {
			t.Fatalf("%s: pid %d is not the agent's child: %s", verb, inst.PID, pi)
		}
		if row := latestRow(t, st, "watchdog:web"); !strings.Contains(string(row.Detail), `"by":"`) {
			t.Fatalf("%s: the row does not name who asked: %s", verb, row.Detail)
		}
	}
}
