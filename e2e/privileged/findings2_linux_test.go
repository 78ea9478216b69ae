//go:build linux

package privileged

import (
	"encoding/json"
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
)

// The state dir was trusted without an owner/mode check and its
// files were opened following symlinks. With a state_dir the attacker owns
// (in a root-owned config), planted links made root append a snapshot to a
// root-only file, create services/web/lock at any path, copy a root-only
// file named by a crash.log link into agent.log, and SIGTERM a root process
// named by a forged pid file.
func TestAttackPlantedSymlinksInStateDir(t *testing.T) {
	requirePrivileged(t)
	// The state dir the attacker owns sits in a root-owned directory (as
	// /var/lib/svc-ctl would): the state dir itself is what is refused.
	state := filepath.Join(rootDir(t, "var"), "state")
	svcDir := filepath.Join(state, "services", "web")
	if err := os.MkdirAll(svcDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{state, filepath.Join(state, "services"), svcDir} {
		os.Chmod(d, 0o755)
		os.Chown(d, attacker.uid, attacker.gid)
	}
	secret, content := victim(t)
	created := filepath.Join(rootDir(t, "etc-like"), "created-by-lock")
	symlinkAs(t, secret, filepath.Join(svcDir, "snapshots.jsonl"))
	symlinkAs(t, created, filepath.Join(svcDir, "lock"))
	symlinkAs(t, secret, filepath.Join(state, "crash.log"))
	// A root process the forged pid file names.
	sleeper := exec.Command("/bin/sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	writeAs(t, filepath.Join(svcDir, "pid"), fmt.Sprintf(`{"pid":%d}`, sleeper.Process.Pid), 0o644, attacker.uid, attacker.gid)

	cfg, _ := rootConfig(t, fmt.Sprintf("[agent]\nstate_dir = %q\n\n", state)+webService("web", freeAddr(t), `interval = "1s"`))
	for _, args := range [][]string{{"start", "web"}, {"stop", "web"}, {"agent"}} {
		r := asRoot(t, nil, append([]string{"--config", cfg}, args...)...)
		wantRefused(t, r, 2, "refusing state dir "+state, "chown root "+state,
			filepath.Join(svcDir, "lock")+" is a symbolic link", filepath.Join(state, "crash.log")+" is a symbolic link")
	}
	// And in a directory the attacker owns, the parent is refused first:
	// they could rename a root-owned state dir away and put theirs there.
	home := attackerDir(t, "home")
	cfg2, _ := rootConfig(t, fmt.Sprintf("[agent]\nstate_dir = %q\n\n", filepath.Join(home, "state"))+webService("web", freeAddr(t), ""))
	r := asRoot(t, nil, "--config", cfg2, "start", "web")
	wantRefused(t, r, 2, "refusing the parent of the state dir", "chown root "+home)
	assertAbsent(t, filepath.Join(home, "state"))
	assertUnchanged(t, secret, content)
	assertAbsent(t, created)
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the root process named by the forged pid file was signalled: %v", err)
	}
}

// A service `log` outside the state dir followed a symlink: a
// user who owns the log's directory made root append service output to any
// file.
func TestAttackLogSymlinkOutsideStateDir(t *testing.T) {
	requirePrivileged(t)
	logs := attackerDir(t, "logs")
	secret, content := victim(t)
	log := filepath.Join(logs, "web.log")
	symlinkAs(t, secret, log)
	addr := freeAddr(t)
	cfg, _ := rootConfig(t, webService("web", addr, fmt.Sprintf("log = %q", log)))
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	r := asRoot(t, nil, "--config", cfg, "start", "web")
	wantRefused(t, r, 1, "refusing log "+log, "chown root "+logs)
	assertUnchanged(t, secret, content)

	// Run as the attacker, the service may log into their directory: the
	// directory is accepted, the planted link still is not.
	cfg2, _ := rootConfig(t, webService("web2", freeAddr(t), fmt.Sprintf("log = %q\nuser = %q", log, attacker.name)))
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg2, "stop", "web2") })
	r = asRoot(t, nil, "--config", cfg2, "start", "web2")
	wantRefused(t, r, 1, log+" is a symbolic link")
	assertUnchanged(t, secret, content)
}

// `svc-ctl exec` stored the command's output tail unredacted
// while the agent's runs of the same job redacted it.
func TestExecOutputRedacted(t *testing.T) {
	requirePrivileged(t)
	const secret = "tok-exec-9f8e7d6c"
	envFile := filepath.Join(rootDir(t, "env"), "j.env")
	writeAs(t, envFile, "API_TOKEN="+secret+"\n", 0o600, 0, 0)
	cfg, _ := rootConfig(t, fmt.Sprintf(`[[job]]
name = "j"
schedule = "@daily"
timezone = "UTC"
external = true
env_file = %q
`, envFile))
	r := asRoot(t, nil, "--config", cfg, "exec", "j", "--", "/usr/bin/ls", "/nonexistent/"+secret)
	if r.code == 0 {
		t.Fatalf("ls of a missing file succeeded:\n%v", r)
	}
	runs := asRoot(t, nil, "--config", cfg, "runs", "--job", "j", "--json")
	if runs.code != 0 || !strings.Contains(runs.stdout, "output_tail") {
		t.Fatalf("runs: want the failed run with its output tail:\n%v", runs)
	}
	if strings.Contains(runs.stdout, secret) || !strings.Contains(runs.stdout, "[redacted]") {
		t.Fatalf("the exec output tail in run_trace is not redacted:\n%s", runs.stdout)
	}
}

// The redaction rules disagreed between config check, probes and
// the agent, and the agent's "every env value of 4+ characters" rule turned
// probe targets into http://[redacted]:18101/ when NO_PROXY=127.0.0.1.
func TestRedactionOneRuleSet(t *testing.T) {
	requirePrivileged(t)
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	cfg, _ := rootConfig(t, webService("web", addr, fmt.Sprintf(`env = { NO_PROXY = "127.0.0.1", PORT = %q, API_TOKEN = "tok-5a5a5a5a" }
health.exec = ["/usr/bin/true", "--auth", "sk-live-4242abcd"]`, port)))
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	if r := asRoot(t, nil, "--config", cfg, "start", "web"); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	runs := asRoot(t, nil, "--config", cfg, "runs", "--json")
	check := asRoot(t, nil, "--config", cfg, "config", "check")
	for what, out := range map[string]string{"run_trace": runs.stdout, "config check": check.stdout} {
		if strings.Contains(out, "sk-live-4242abcd") || strings.Contains(out, "tok-5a5a5a5a") {
			t.Errorf("%s shows a secret:\n%s", what, out)
		}
		if !strings.Contains(out, "--auth") {
			t.Errorf("%s lost the flag itself:\n%s", what, out)
		}
	}
	if !strings.Contains(runs.stdout, "http://"+addr+"/health") {
		t.Errorf("run_trace does not show the probe target intact (NO_PROXY=127.0.0.1 must not scrub it):\n%s", runs.stdout)
	}
}

// A root agent ran every service, job and exec probe as root.
func TestServiceRunsAsConfiguredUser(t *testing.T) {
	requirePrivileged(t)
	addr := freeAddr(t)
	cfg, state := rootConfig(t, webService("web", addr, fmt.Sprintf(`user = %q
health.exec = ["/usr/bin/id", "-u"]`, attacker.name)))
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	if r := asRoot(t, nil, "--config", cfg, "start", "web"); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	pid := servicePID(t, addr)
	if uid := statusField(t, pid, "Uid:"); uid != strconv.Itoa(attacker.uid) {
		t.Errorf("the service runs as uid %s, want %d (%s)", uid, attacker.uid, attacker.name)
	}
	env := environ(t, pid)
	for _, want := range []string{"USER=" + attacker.name, "LOGNAME=" + attacker.name} {
		if !strings.Contains(env, want+"\x00") {
			t.Errorf("the service's environment lacks %s", want)
		}
	}
	log := filepath.Join(state, "services", "web", "runtime.log")
	fi, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 0 || int(st.Gid) != attacker.gid || fi.Mode().Perm() != 0o640 {
		t.Errorf("runtime.log is %d:%d %v, want root-owned, group %d, 0640", st.Uid, st.Gid, fi.Mode().Perm(), attacker.gid)
	}
	runs := asRoot(t, nil, "--config", cfg, "runs", "--json")
	if !strings.Contains(runs.stdout, fmt.Sprintf(`"output": "%d\n"`, attacker.uid)) && !strings.Contains(runs.stdout, fmt.Sprintf(`"output":"%d\n"`, attacker.uid)) &&
		!strings.Contains(runs.stdout, fmt.Sprintf(`%d\\n`, attacker.uid)) {
		t.Errorf("the exec health check did not run as uid %d:\n%s", attacker.uid, runs.stdout)
	}
}

// `svc-ctl start NAME` from a shell put that shell's environment
// into the service, while the agent's starts used the agent's: a service
// that works when started by hand fails after the next reboot. Here the
// shell is the attacker's idea of a root shell: LD_PRELOAD and a proxy.
func TestAttackCallerEnvironmentReachesService(t *testing.T) {
	requirePrivileged(t)
	addr := freeAddr(t)
	envFile := filepath.Join(rootDir(t, "env"), "web.env")
	writeAs(t, envFile, "FROM_ENV_FILE=yes\n", 0o600, 0, 0)
	cfg, _ := rootConfig(t, webService("web", addr, fmt.Sprintf(`env_file = %q
env = { FROM_ENV = "yes" }`, envFile)))
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	shell := []string{"LD_PRELOAD=/nonexistent/evil.so", "HTTPS_PROXY=http://127.0.0.1:9", "SVCCTL_FROM_SHELL=1", "PATH=/home/someone/.pyenv/shims:/usr/bin:/bin"}
	if r := asRoot(t, shell, "--config", cfg, "start", "web"); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	env := environ(t, servicePID(t, addr))
	for _, leak := range []string{"LD_PRELOAD", "HTTPS_PROXY", "SVCCTL_FROM_SHELL", "pyenv"} {
		if strings.Contains(env, leak) {
			t.Errorf("the caller's %s reached the service", leak)
		}
	}
	for _, want := range []string{"FROM_ENV_FILE=yes", "FROM_ENV=yes", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"} {
		if !strings.Contains(env, want+"\x00") {
			t.Errorf("the service's environment lacks %s", want)
		}
	}
	names := asRoot(t, nil, "--config", cfg, "status", "web", "--env")
	for _, want := range []string{"FROM_ENV_FILE", "FROM_ENV", "PATH"} {
		if !strings.Contains(names.stdout, want) {
			t.Errorf("status web --env lacks %s:\n%v", want, names)
		}
	}
}

// A non-root user's `svc-ctl status` said "agent: stopped" while
// the root agent ran (it could not read the lock or ledger); verify gave
// PASS to checks it could not read; runs/why said "has the agent ever run?"
// for EACCES. Readers opened the ledger read-write.
func TestReaderWithoutPermission(t *testing.T) {
	requirePrivileged(t)
	addr := freeAddr(t)
	cfg, state := rootConfig(t, webService("web", addr, ""))
	os.Chmod(cfg, 0o644) // readable by everyone, writable by root only: a secure config
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	if r := asRoot(t, nil, "--config", cfg, "start", "web"); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	db := filepath.Join(state, "svc-ctl.db")
	denied := "permission denied reading " + db + ": run as root or as the agent's user"
	for _, args := range [][]string{{"status"}, {"runs"}, {"why", "web"}, {"missing"}, {"snapshot", "web"}} {
		r := asAttacker(t, append([]string{"--config", cfg}, args...)...)
		wantRefused(t, r, 1, denied)
		if strings.Contains(r.stdout+r.stderr, "stopped") || strings.Contains(r.stdout+r.stderr, "ever run") {
			t.Errorf("%v tells a reader without permission a false story:\n%v", args, r)
		}
	}
	v := asAttacker(t, "--config", cfg, "verify")
	if v.code != 1 || !strings.Contains(v.stdout, "could not read") {
		t.Fatalf("verify without permission:\n%v", v)
	}
	for _, line := range strings.Split(v.stdout, "\n") {
		if strings.Contains(line, "PASS") {
			t.Errorf("verify passes a check it could not read: %s", line)
		}
	}
	// Readers as root never write the ledger.
	before, _ := os.Stat(db)
	asRoot(t, nil, "--config", cfg, "runs")
	asRoot(t, nil, "--config", cfg, "status")
	after, _ := os.Stat(db)
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("a reader changed the ledger: %v %d -> %v %d", before.ModTime(), before.Size(), after.ModTime(), after.Size())
	}
}

// servicePID asks testsvc for its pid.
func servicePID(t *testing.T, addr string) int {
	t.Helper()
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/pid")
	if err != nil {
		t.Fatalf("service not answering: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid %q: %v", b, err)
	}
	return pid
}

func statusField(t *testing.T, pid int, field string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == field {
			return f[1]
		}
	}
	return ""
}

func environ(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var _ = json.Marshal

// The same, for jobs: a job with `user` runs as that user, whether the agent
// runs it or another scheduler runs it as root through `svc-ctl exec`.
func TestJobRunsAsConfiguredUser(t *testing.T) {
	requirePrivileged(t)
	cfg, _ := rootConfig(t, fmt.Sprintf(`[[job]]
name = "j"
schedule = "@daily"
timezone = "UTC"
external = true
user = %q
`, attacker.name))
	r := asRoot(t, nil, "--config", cfg, "exec", "j", "--", "/usr/bin/id", "-u")
	if r.code != 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(attacker.uid) {
		t.Fatalf("exec of a job with user = %s ran as %q, want uid %d:\n%v", attacker.name, strings.TrimSpace(r.stdout), attacker.uid, r)
	}
}

// TestReaderWithUnreadableEnvFile: the recommended env_file is 0600 and the
// agent's. A person who may read the config (0644) but not the env_file gets
// the readers' answers — "permission denied reading the state", exit 1 — not
// a config that is invalid for everyone but root (exit 2 from status, runs,
// why, schedule next...). What needs the env_file's names or values says it
// could not read it; the root agent's verbs still load it strictly.
func TestReaderWithUnreadableEnvFile(t *testing.T) {
	requirePrivileged(t)
	addr := freeAddr(t)
	cfg, state := rootConfig(t, webService("web", addr, `env_file = "web.env"`)+`
[[job]]
name = "nightly"
schedule = "0 3 * * *"
timezone = "UTC"
command = ["/bin/true"]
env_file = "web.env"
`)
	envFile := filepath.Join(filepath.Dir(cfg), "web.env")
	writeAs(t, envFile, "API_TOKEN=tok-envfile-4711\n", 0o600, 0, 0)
	os.Chmod(cfg, 0o644)
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	if r := asRoot(t, nil, "--config", cfg, "start", "web"); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	db := filepath.Join(state, "svc-ctl.db")
	for _, args := range [][]string{{"status"}, {"runs"}, {"why", "web"}, {"missing"}, {"snapshot", "web"}} {
		r := asAttacker(t, append([]string{"--config", cfg}, args...)...)
		wantRefused(t, r, 1, "permission denied reading "+db+": run as root or as the agent's user")
		if strings.Contains(r.stderr, "env_file") {
			t.Errorf("%v blames the env_file instead of the state it could not read:\n%v", args, r)
		}
	}
	if r := asAttacker(t, "--config", cfg, "schedule", "next", "nightly", "-n", "1"); r.code != 0 {
		t.Errorf("schedule next needs no env_file:\n%v", r)
	}
	for _, args := range [][]string{{"config", "check"}, {"status", "web", "--env"}} {
		r := asAttacker(t, append([]string{"--config", cfg}, args...)...)
		wantRefused(t, r, 1, "permission denied reading "+envFile)
	}
	if r := asRoot(t, nil, "--config", cfg, "config", "check"); r.code != 0 || strings.Contains(r.stdout, "tok-envfile-4711") {
		t.Errorf("root's config check:\n%v", r)
	}
}

// TestRunVerbsWithoutPermission: a person without sudo who runs start, stop,
// pause, resume or drill against the root agent's state gets the readers'
// one answer (exit 1) before anything is tried — not a failed cycle
// "interrupted", a ledger it "cannot create", a directory it "cannot
// create" or "the agent is unknown" — and the service is untouched.
func TestRunVerbsWithoutPermission(t *testing.T) {
	requirePrivileged(t)
	addr := freeAddr(t)
	cfg, state := rootConfig(t, webService("web", addr, ""))
	os.Chmod(cfg, 0o644)
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	if r := asRoot(t, nil, "--config", cfg, "start", "web"); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	pid := servicePID(t, addr)
	denied := "svc-ctl: permission denied reading " + filepath.Join(state, "svc-ctl.db") + ": run as root or as the agent's user\n"
	for _, args := range [][]string{{"start", "web"}, {"stop", "web"}, {"pause", "web"}, {"resume", "web"}, {"drill", "web"}} {
		r := asAttacker(t, append([]string{"--config", cfg}, args...)...)
		if r.code != 1 || r.stderr != denied || r.stdout != "" {
			t.Errorf("%v without permission: want exit 1 and only %q, got:\n%v", args, denied, r)
		}
	}
	if got := servicePID(t, addr); got != pid {
		t.Errorf("the service was replaced: pid %d -> %d", pid, got)
	}
}
