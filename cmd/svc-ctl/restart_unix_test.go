//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
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
