package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// The verbs that report a stop or a restart say only what happened: stop
// exits 1 while something still serves the service's port or a member
// still runs, and restart is never ok while the old instance (or a process
// nothing proves) still serves. Real processes on this host, the CLI with
// no agent (plain: no subreaper, no cgroup), as on a Mac.

// A program outside svc-ctl serves the service's health port: stop exits
// 1 naming it (never a member, not signalled), and it still runs; restart
// spawns nothing beside it and is failed/start-failed naming it.
func TestStopAndRestartSayWhoStillServes(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 || strings.Contains(r.stdout, "NOT stopped") || served(addr) {
		t.Fatalf("stop of its own instance: %+v (served after: %v); want exit 0, the port free", r, served(addr))
	}

	other := exec.Command(testsvcBin, "--addr", addr)
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	testutil.WaitFor(t, 10*time.Second, "the other program serving", func() bool { return testutil.Healthy(addr) })
	pid := strconv.Itoa(other.Process.Pid)

	r := svcctl(t, "stop", "web", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "NOT stopped") || !strings.Contains(r.stdout, "still running: pid "+pid) ||
		!strings.Contains(r.stdout, "never a member") {
		t.Fatalf("stop while pid %s serves the port: %+v; want exit 1 naming it, never a member", pid, r)
	}
	if other.ProcessState != nil || !testutil.Healthy(addr) {
		t.Fatal("stop signalled a process that never was a member")
	}

	if r := svcctl(t, "start", "web", "--config", cfg); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "pid "+pid) {
		t.Fatalf("start while pid %s serves the port: %+v; want failed, naming it", pid, r)
	}
	r = svcctl(t, "restart", "web", "--config", cfg)
	if r.code == 0 || strings.Contains(r.stdout, "restarted (") || !strings.Contains(r.stdout+r.stderr, "pid "+pid) {
		t.Fatalf("restart while pid %s serves the port: %+v; want failed, naming it", pid, r)
	}
	st := openStore(t, state)
	if row := latestRow(t, st, "watchdog:web"); row.Outcome != runtrace.OutcomeFailed || row.Reason != runtrace.ReasonStartFailed {
		t.Fatalf("restart's row: %s %s", row.Verdict(), row.Detail)
	}
	if _, err := proc.ReadPidFile(filepath.Join(state, "services", "web", "pid")); err == nil {
		if inst, _ := proc.ReadInstance(filepath.Join(state, "services", "web", "pid")); inst.PID != 0 && proc.Alive(inst.PID) {
			t.Fatalf("restart spawned pid %d beside the process that serves", inst.PID)
		}
	}
}

// A daemon that clears its environment (no marker) and leaves its session
// at once, started with no agent (no subreaper): whether the start sees it
// as its launcher's child is a race, and what each verb says must be true
// either way. A start or restart that says ok leaves a member serving that
// the stop then ends (exit 0, the port free); one that could not prove the
// daemon says so and names who serves; a stop that could not end it exits
// 1 naming it, and it still serves.
func TestVerbsAreTrueForADaemonNothingMayProve(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", fmt.Sprintf(`
[[service]]
name = "web"
command = [%q, "--launch", "at-once-noenv", "--", "--addr", %q]
interval = "1h"
start_timeout = "3s"
stop_timeout = "2s"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"
`, testsvcBin, addr, addr))
	_, p, _ := strings.Cut(addr, ":")
	port, _ := strconv.Atoi(p)
	holder := func() int32 {
		h, err := proc.PortHolder(t.Context(), uint32(port))
		if err != nil || h == nil {
			return 0
		}
		return h.PID
	}
	free := func() {
		t.Helper()
		killServersOn(addr)
		testutil.WaitFor(t, 10*time.Second, "the port free", func() bool { return !served(addr) })
	}
	t.Cleanup(func() { killServersOn(addr) })
	for i := range 4 {
		start := svcctl(t, "start", "web", "--config", cfg)
		if start.code != 0 {
			if out := start.stdout + start.stderr; !strings.Contains(out, "nothing proves it") && !strings.Contains(out, "no process of the instance is left") {
				t.Fatalf("try %d: start failed without saying why: %+v", i, start)
			}
			t.Logf("try %d: start failed: %s", i, strings.TrimSpace(start.stdout+start.stderr))
			free()
			continue
		}
		testutil.WaitFor(t, 5*time.Second, "the daemon serving", func() bool { return holder() > 0 })
		old := holder()
		restart := svcctl(t, "restart", "web", "--config", cfg)
		now := holder()
		switch {
		case restart.code == 0 && (now == 0 || now == old):
			t.Fatalf("try %d: restart said %q, but pid %d serves (was %d)", i, restart.stdout, now, old)
		case restart.code != 0 && strings.Contains(restart.stdout, "restarted ("):
			t.Fatalf("try %d: restart failed but printed restarted: %+v", i, restart)
		}
		stop := svcctl(t, "stop", "web", "--config", cfg)
		after := served(addr)
		t.Logf("try %d: start ok; restart exit %d; stop exit %d, served after: %v", i, restart.code, stop.code, after)
		switch {
		case stop.code == 0 && after:
			t.Fatalf("try %d: stop exited 0 but the port is still served (restart: %+v): %+v", i, restart, stop)
		case stop.code != 0 && !after:
			t.Fatalf("try %d: stop exited %d with nothing left: %+v", i, stop.code, stop)
		case stop.code != 0 && !strings.Contains(stop.stdout, fmt.Sprintf("still running: pid %d", holder())):
			t.Fatalf("try %d: stop did not name the process that serves (pid %d): %+v", i, holder(), stop)
		case restart.code == 0 && stop.code != 0:
			t.Fatalf("try %d: restart said ok, but its instance could not be stopped: %+v", i, stop)
		}
		free()
	}
}

// A member that outlives SIGKILL (frozen by the cgroup v1 freezer, as a
// process stuck in the kernel is): restart spawns nothing beside it and is
// failed/start-failed naming it; stop exits 1 naming it; once it can end,
// stop exits 0.
func TestStopAndRestartNameAMemberThatOutlivesThem(t *testing.T) {
	freezer := freezerCgroup(t)
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	pidPath := filepath.Join(state, "services", "web", "pid")
	inst, err := proc.ReadInstance(pidPath)
	if err != nil {
		t.Fatal(err)
	}
	freezer.freeze(t, inst.PID)
	pid := fmt.Sprintf("pid %d", inst.PID)

	r := svcctl(t, "restart", "web", "--config", cfg)
	if r.code == 0 || strings.Contains(r.stdout, "restarted (") || !strings.Contains(r.stdout+r.stderr, "did not end") ||
		!strings.Contains(r.stdout+r.stderr, pid) {
		t.Fatalf("restart while %s outlives its stop: %+v; want failed naming it", pid, r)
	}
	if now, err := proc.ReadInstance(pidPath); err != nil || now.PID != inst.PID {
		t.Fatalf("restart spawned beside the member that lives on: record %+v, %v", now, err)
	}
	st := openStore(t, state)
	if row := latestRow(t, st, "watchdog:web"); row.Outcome != runtrace.OutcomeFailed || row.Reason != runtrace.ReasonStartFailed ||
		!strings.Contains(string(row.Detail), `"old_left":["`+pid) {
		t.Fatalf("restart's row: %s %s", row.Verdict(), row.Detail)
	}

	r = svcctl(t, "stop", "web", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "NOT stopped") || !strings.Contains(r.stdout, "still running: "+pid) {
		t.Fatalf("stop while %s outlives it: %+v; want exit 1 naming it", pid, r)
	}
	freezer.thaw(t)
	testutil.WaitFor(t, 10*time.Second, pid+" ended once thawed (its SIGKILL was pending)", func() bool { return !proc.Alive(inst.PID) })
	if r := svcctl(t, "stop", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("stop once it ended: %+v", r)
	}
}

// freezer is a cgroup of the v1 freezer the test made: a process frozen
// there does not run, not even to die of a SIGKILL, until thawed.
type freezer struct{ dir string }

func freezerCgroup(t *testing.T) freezer {
	t.Helper()
	root := "/sys/fs/cgroup/freezer"
	dir := filepath.Join(root, fmt.Sprintf("svcctl-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		// cgroup v2's freezer lets SIGKILL through: nothing else holds a
		// process past SIGKILL on demand.
		t.Skipf("needs the cgroup v1 freezer (%s) to hold a process past SIGKILL: %v", root, err)
	}
	f := freezer{dir: dir}
	t.Cleanup(func() {
		f.thaw(t)
		testutil.WaitFor(t, 10*time.Second, "the freezer cgroup empty", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			return strings.TrimSpace(string(b)) == ""
		})
		os.Remove(dir)
	})
	return f
}

func (f freezer) freeze(t *testing.T, pid int32) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, "cgroup.procs"), []byte(strconv.Itoa(int(pid))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "freezer.state"), []byte("FROZEN"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "frozen", func() bool {
		b, _ := os.ReadFile(filepath.Join(f.dir, "freezer.state"))
		return strings.TrimSpace(string(b)) == "FROZEN"
	})
}

func (f freezer) thaw(t *testing.T) {
	os.WriteFile(filepath.Join(f.dir, "freezer.state"), []byte("THAWED"), 0o644)
}

func served(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// killServersOn kills every testsvc process whose arguments name addr:
// the daemons this test's service made, which no verb could prove its own.
func killServersOn(addr string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !strings.Contains(string(b), "\x00"+addr) || !strings.HasPrefix(string(b), testsvcBin+"\x00") {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(d))); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
	}
}

// The service's stop_command runs first when `svc-ctl stop` stops it, and
// the stop says how it ended.
func TestStopRunsTheStopCommand(t *testing.T) {
	addr := testutil.FreeAddr(t)
	said := filepath.Join(t.TempDir(), "said")
	svc := strings.Replace(webService("web", addr, "1h"), `stop_timeout = "2s"`, fmt.Sprintf(`stop_timeout = "2s"
stop_command = ["/bin/sh", "-c", "echo asked > %s"]`, said), 1)
	cfg, _ := writeConfig(t, "", svc)
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	r := svcctl(t, "stop", "web", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "stop_command exited with code 0 after") {
		t.Fatalf("stop: %+v; want the stop_command's end", r)
	}
	if b, _ := os.ReadFile(said); strings.TrimSpace(string(b)) != "asked" {
		t.Fatalf("the stop_command did not run: %q", b)
	}
	if served(addr) {
		t.Fatal("the port is still served after the stop")
	}
}
