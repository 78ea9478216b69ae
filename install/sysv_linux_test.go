package install

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// sysvScript renders the real SysV script for the test binary (acting as the
// agent) with its pid file moved into dir.
func sysvScript(t *testing.T, dir string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{Exe: exe, ConfigPath: filepath.Join(dir, "svc-ctl.toml"), StateDir: filepath.Join(dir, "state"), DrainTimeout: 0}
	u, err := RenderUnit(s, sysv)
	if err != nil {
		t.Fatal(err)
	}
	content := strings.Replace(u.Content, "pid_file="+sysvPidFile, "pid_file="+shQuote(filepath.Join(dir, "agent.pid")), 1)
	p := filepath.Join(dir, "svc-ctl.init")
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func runScript(t *testing.T, script, action string, env []string) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", script, action)
	cmd.Env = append(os.Environ(), env...)
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
	t.Fatalf("sh %s %s: %v", script, action, err)
	return "", -1
}

func alive(pid int) bool {
	_, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe") // unreadable for a zombie
	return err == nil
}

func TestSysvScriptLifecycle(t *testing.T) {
	dir := t.TempDir()
	script := sysvScript(t, dir)
	state := filepath.Join(dir, "state")
	env := []string{"SVCCTL_INSTALL_HELPER=agent", "SVCCTL_HELPER_STATE=" + state}

	out, code := runScript(t, script, "start", env)
	if code != 0 || !strings.Contains(out, "Started") {
		t.Fatalf("start: exit %d, output %q", code, out)
	}
	pid := readPid(t, filepath.Join(dir, "agent.pid"))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir created by the script: %v, mode %v; want 0700", err, fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Join(state, stdioLog)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("stdio log: %v; want it created 0600", err)
	}
	testutil.WaitFor(t, 10*time.Second, "the agent's start mark", func() bool { _, err := os.Stat(filepath.Join(state, "agent.started")); return err == nil })

	if out, code := runScript(t, script, "start", env); code != 0 || !strings.Contains(out, "Already started") {
		t.Errorf("second start: exit %d, output %q", code, out)
	}
	if out, code := runScript(t, script, "status", env); code != 0 || !strings.HasPrefix(out, "Running") {
		t.Errorf("status while running: exit %d, output %q", code, out)
	}

	out, code = runScript(t, script, "stop", env)
	if code != 0 || !strings.Contains(out, "Stopped") {
		t.Fatalf("stop: exit %d, output %q", code, out)
	}
	if alive(pid) {
		t.Errorf("agent pid %d still alive after stop", pid)
	}
	if out, code := runScript(t, script, "status", env); code != 3 || !strings.HasPrefix(out, "Stopped") {
		t.Errorf("status after stop: exit %d, output %q; want 3 and Stopped (LSB)", code, out)
	}
}

// A pid file naming someone else's process (pids are reused after a reboot)
// must read as stopped, and stop must not signal that process.
func TestSysvScriptIgnoresForeignPid(t *testing.T) {
	dir := t.TempDir()
	script := sysvScript(t, dir)
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	if err := os.WriteFile(filepath.Join(dir, "agent.pid"), []byte(strconv.Itoa(other.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := runScript(t, script, "status", nil); code != 3 {
		t.Errorf("status with a foreign pid: exit %d, output %q; want 3", code, out)
	}
	if out, code := runScript(t, script, "stop", nil); code != 0 || !strings.Contains(out, "Not running") {
		t.Errorf("stop with a foreign pid: exit %d, output %q", code, out)
	}
	if !alive(other.Process.Pid) {
		t.Fatal("stop signalled a process that is not the agent")
	}
}

func readPid(t *testing.T, p string) int {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
