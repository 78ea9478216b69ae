package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"svcctl/internal/testenv"
	"svcctl/internal/testutil"
	"svcctl/proc"
)

// A service a person starts from a shell, while an agent with a delegated
// cgroup runs, gets a cgroup of its own beside the agent's instances (issue
// 10: the CLI's starts were owned by their session only, so a daemon that
// left it escaped `svc-ctl stop`). The agent runs here in a test cgroup
// marked delegated as systemd marks one (trusted.delegate), as it would
// under the unit svc-ctl installs.
func TestCLIStartGetsTheAgentsCgroup(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	parent := delegatedTestCgroup(t)
	addr := testutil.FreeAddr(t)
	// The shape that escapes a session: a launcher that starts the server
	// as a setsid daemon and exits 0.
	run := filepath.Join(t.TempDir(), "run")
	if err := os.WriteFile(run, []byte("#!/bin/sh\nsetsid -f \"$@\"\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, state := writeConfig(t, "", fmt.Sprintf(`
[[service]]
name = "web"
command = [%q, %q, "--addr", %q]
interval = "1h"
start_timeout = "5s"
stop_timeout = "2s"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"
`, run, testsvcBin, addr, addr))

	fd, err := unix.Open(parent, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	agent := exec.Command(svcctlBin, "agent", "--config", cfg, "--max-stagger", "100ms", "--verify-after", "0")
	agent.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd} // born in it, as under systemd
	var errb strings.Builder
	agent.Stderr = &errb
	if err := agent.Start(); err != nil {
		t.Skipf("cannot start a process in a test cgroup (%v): untested here", err)
	}
	t.Cleanup(func() {
		agent.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { agent.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			agent.Process.Kill()
			<-done
		}
	})
	pidFile := filepath.Join(state, "services", "web", "pid")
	testutil.WaitFor(t, 20*time.Second, "the agent's first start of web", func() bool {
		_, err := os.Stat(pidFile)
		return err == nil && testutil.Healthy(addr)
	})
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("stop: %+v", r)
	}
	// The test process is not in the agent's cgroup: a start from here is a
	// person's from a shell.
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v\nagent: %s", r, errb.String())
	}
	b, _ := os.ReadFile(pidFile)
	id, err := proc.ReadInstance(pidFile)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	if id.Cgroup == "" || filepath.Dir(id.Cgroup) != parent {
		t.Fatalf("the person's start recorded cgroup %q, want one under the agent's %s (pid file %s)", id.Cgroup, parent, b)
	}
	// The daemon that left the launcher's session is in the instance's cgroup...
	resp, err := http.Get("http://" + addr + "/pid")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	server := strings.TrimSpace(string(b))
	if pid, err := strconv.Atoi(server); err == nil {
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // the test started it; gone already if svc-ctl did its job
	}
	members, err := os.ReadFile(filepath.Join(id.Cgroup, "cgroup.procs"))
	if err != nil || !strings.Contains("\n"+string(members), "\n"+server+"\n") {
		t.Fatalf("the daemon %s is not in %s: %q (%v)", server, id.Cgroup, members, err)
	}
	// ...so the person's stop ends it.
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("stop after the start: %+v", r)
	}
	if testutil.Healthy(addr) {
		t.Fatalf("the daemon %s still serves after svc-ctl stop", server)
	}
}

// delegatedTestCgroup makes a cgroup marked delegated (trusted.delegate, as
// systemd marks a unit's with Delegate=yes), removed with whatever the test
// left in it at the end. It skips where that is impossible (not root, no
// cgroup v2 mounted, a read-only cgroup fs).
func delegatedTestCgroup(t *testing.T) string {
	t.Helper()
	dir := testenv.CgroupParent(t, "cli")
	if err := unix.Setxattr(dir, "trusted.delegate", []byte("1"), 0); err != nil {
		t.Skipf("cannot mark %s delegated (%v): untested here", dir, err)
	}
	return dir
}
