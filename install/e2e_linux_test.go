//go:build linux

package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testsvc"
)

// TestE2EInstallOnThisHost installs the real svc-ctl binary as a real system
// service on this host, with whatever init system kardianos finds (on a CI
// container without systemd as PID 1: SysV, /etc/init.d/svc-ctl), and checks
// it by evidence: the agent process runs, writes its database and log, starts
// the supervised test service, survives a reinstall without taking the
// service down, passes `svc-ctl verify` and `svc-ctl drill`; the backstop
// registers and runs once; uninstall leaves no file behind and the service
// running. Gated: it changes the host.
func TestE2EInstallOnThisHost(t *testing.T) {
	if os.Getenv("SVCCTL_E2E_INSTALL") != "1" {
		t.Skip("set SVCCTL_E2E_INSTALL=1 to install svc-ctl as a real OS service on this host (as root; CI does)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("SVCCTL_E2E_INSTALL=1 needs root: it installs a system service")
	}
	tgt := CurrentTarget()
	t.Logf("service manager: %s", tgt.Platform)
	leftovers := systemPaths(t, tgt)
	refuseIfPresent(t, leftovers)

	dir := t.TempDir()
	e := &e2e{t: t, dir: dir, state: filepath.Join(dir, "state"), bin: buildSvcCtl(t, dir)}
	svcBin, err := testsvc.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	e.svcBin = svcBin
	e.port = freePort(t)
	e.cfg = e.writeConfig()
	t.Cleanup(e.cleanup)

	out := e.mustRun(0, "install", "--config", e.cfg)
	if want := "installed and started svc-ctl (" + tgt.Platform + ", system)"; !strings.Contains(out, want) {
		t.Fatalf("install said:\n%s\nwant %q", out, want)
	}
	agentPID := e.waitAgent()
	e.waitFile(filepath.Join(e.state, "svc-ctl.db"))
	e.waitFile(filepath.Join(e.state, "agent.log"))
	e.waitHealthy()
	svcPID := e.servicePID()

	// Install again: same definition, so a restart; the service stays up.
	out = e.mustRun(0, "install", "--config", e.cfg)
	if !strings.Contains(out, "already installed; restarted") {
		t.Fatalf("second install said:\n%s", out)
	}
	if newPID := e.waitAgent(); newPID == agentPID {
		t.Errorf("agent pid %d unchanged after a restart", newPID)
	}
	if !alive(svcPID) {
		t.Fatalf("supervised service (pid %d) died with the agent's restart: the service manager kills the agent's children", svcPID)
	}
	e.waitHealthy()

	if e.has("verify") {
		e.pollRun(60*time.Second, 0, "verify", "--config", e.cfg)
	}
	if e.has("drill") {
		e.mustRun(0, "drill", "e2e", "--config", e.cfg)
		svcPID = e.servicePID()
	}

	e.backstop()

	agentPID = e.waitAgent()
	out = e.mustRun(0, "uninstall")
	if !strings.Contains(out, "stopped and removed svc-ctl") {
		t.Fatalf("uninstall said:\n%s", out)
	}
	if alive(agentPID) {
		t.Errorf("agent pid %d still alive after uninstall", agentPID)
	}
	if !alive(svcPID) {
		t.Errorf("supervised service (pid %d) stopped with the agent: it must keep running", svcPID)
	}
	for _, p := range leftovers {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("uninstall left %s behind", p)
		}
	}
	if out := e.mustRun(0, "uninstall"); !strings.Contains(out, "not installed; nothing to do") {
		t.Errorf("second uninstall said:\n%s", out)
	}
}

type e2e struct {
	t                            *testing.T
	dir, state, bin, svcBin, cfg string
	port                         int
}

func (e *e2e) writeConfig() string {
	// interval 1m: the agent's own cycles must not overwrite the backstop's
	// manual cycle in watchdog.last.json before the check reads it.
	body := fmt.Sprintf(`[agent]
state_dir = %q
drain_timeout = "5s"

[[service]]
name = "e2e"
command = [%q, "--addr", "127.0.0.1:%d"]
interval = "1m"
start_timeout = "10s"
  [service.health]
  http = "http://127.0.0.1:%d/health"
`, e.state, e.svcBin, e.port, e.port)
	p := filepath.Join(e.dir, "svc-ctl.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// backstop registers the backstop, which must prove one run; a host without
// a cron daemon (a container) must be told so, with exit 1.
func (e *e2e) backstop() {
	out, code := e.run("install", "--backstop", "--config", e.cfg)
	e.t.Logf("svc-ctl install --backstop: exit %d\n%s", code, out)
	switch {
	case !strings.Contains(out, "ran it once"):
		e.t.Errorf("install --backstop (exit %d) did not prove a run:\n%s", code, out)
	case code == 1 && !strings.Contains(out, "no cron daemon is running"):
		e.t.Errorf("install --backstop failed:\n%s", out)
	case code != 0 && code != 1:
		e.t.Errorf("install --backstop exit %d:\n%s", code, out)
	}
	if out := e.mustRun(0, "uninstall", "--backstop"); !strings.Contains(out, "removed the backstop") {
		e.t.Errorf("uninstall --backstop said:\n%s", out)
	}
}

func (e *e2e) cleanup() {
	// Always, also after a failure: no service may outlive the test.
	for _, args := range [][]string{{"uninstall", "--backstop"}, {"uninstall"}} {
		if out, code := e.run(args...); code != 0 {
			e.t.Logf("cleanup: svc-ctl %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	for _, pid := range pidsOf(e.svcBin) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func (e *e2e) run(args ...string) (string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	e.t.Fatalf("svc-ctl %s: %v", strings.Join(args, " "), err)
	return "", -1
}

func (e *e2e) mustRun(code int, args ...string) string {
	e.t.Helper()
	out, got := e.run(args...)
	if got != code {
		e.t.Fatalf("svc-ctl %s: exit %d, want %d\n%s", strings.Join(args, " "), got, code, out)
	}
	return out
}

// pollRun repeats a command until it exits with code (verify needs a fresh
// heartbeat and a cycle after the restart).
func (e *e2e) pollRun(limit time.Duration, code int, args ...string) {
	e.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		out, got := e.run(args...)
		if got == code {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("svc-ctl %s: exit %d after %s, want %d\n%s", strings.Join(args, " "), got, limit, code, out)
		}
		time.Sleep(time.Second)
	}
}

func (e *e2e) has(command string) bool {
	_, code := e.run(command, "--help")
	return code == 0
}

// waitAgent waits for the service manager to report the agent running and
// returns its pid: the one process running our binary as `agent`.
func (e *e2e) waitAgent() int {
	e.t.Helper()
	var pids []int
	e.waitFor("the agent process", func() bool {
		info, err := Status(StatusOptions{})
		pids = agentPIDs(e.bin)
		return err == nil && info.Installed && info.Running && len(pids) == 1
	})
	return pids[0]
}

func (e *e2e) servicePID() int {
	e.t.Helper()
	var pids []int
	e.waitFor("the supervised service process", func() bool { pids = pidsOf(e.svcBin); return len(pids) == 1 })
	return pids[0]
}

func (e *e2e) waitHealthy() {
	e.t.Helper()
	url := fmt.Sprintf("http://127.0.0.1:%d/health", e.port)
	e.waitFor(url+" healthy", func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

func (e *e2e) waitFile(p string) {
	e.t.Helper()
	e.waitFor(p, func() bool { _, err := os.Stat(p); return err == nil })
}

func (e *e2e) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(e.state, "agent.log"))
			stdio, _ := os.ReadFile(filepath.Join(e.state, stdioLog))
			e.t.Fatalf("timed out waiting for %s\nagent.log:\n%s\n%s:\n%s", what, lastLines(log, 20), stdioLog, lastLines(stdio, 20))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// systemPaths are the files an install or a backstop on this host could
// leave behind: all must be absent before the test and after uninstall.
func systemPaths(t *testing.T, tgt Target) []string {
	t.Helper()
	s, err := bareSpec(false)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{unitPath(s, tgt)}
	links, pidFile := initLeftovers("/")
	paths = append(paths, links...)
	paths = append(paths, pidFile,
		"/etc/systemd/system/multi-user.target.wants/"+ServiceName+".service",
		"/etc/systemd/system/timers.target.wants/"+BackstopName+".timer")
	if sched, err := newScheduler(s, tgt, DefaultBackstopEvery); err == nil {
		paths = append(paths, sched.paths()...)
	}
	return paths
}

func refuseIfPresent(t *testing.T, paths []string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("%s exists: an svc-ctl service or backstop is already installed on this host; refusing to touch it (remove it with `svc-ctl uninstall` and `svc-ctl uninstall --backstop`)", p)
		}
	}
	if info, err := Status(StatusOptions{}); err == nil && info.Installed {
		t.Fatalf("the service manager (%s) already has an svc-ctl service; refusing to touch it", info.Platform)
	}
}

func buildSvcCtl(t *testing.T, dir string) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "svc-ctl")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/svc-ctl")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build svc-ctl: %v\n%s", err, b)
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// pidsOf lists live processes running exe (by /proc/PID/exe, not by name).
func pidsOf(exe string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && target == exe {
			pids = append(pids, pid)
		}
	}
	return pids
}

// agentPIDs are the processes running exe as `svc-ctl agent`.
func agentPIDs(exe string) []int {
	var out []int
	for _, pid := range pidsOf(exe) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if args := bytes.Split(b, []byte{0}); err == nil && len(args) > 1 && string(args[1]) == "agent" {
			out = append(out, pid)
		}
	}
	return out
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
