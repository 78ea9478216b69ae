package probe

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("exec tests use /bin/true, /bin/false, /bin/sleep and /proc: Linux only")
	}
}

func TestExecExitStatus(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	r := run(Spec{Kind: KindExec, Argv: []string{"/bin/true"}, Timeout: 5 * time.Second})
	wantHealthy(t, r)
	if r.Detail["exit_code"] != 0 || r.Target != "/bin/true" {
		t.Fatalf("exit_code %v target %q, want 0 and /bin/true", r.Detail["exit_code"], r.Target)
	}
	r = run(Spec{Kind: KindExec, Argv: []string{"/bin/false"}, Timeout: 5 * time.Second})
	wantUnhealthy(t, r, "exit status 1")
	if r.Detail["exit_code"] != 1 {
		t.Fatalf("exit_code = %v, want 1", r.Detail["exit_code"])
	}
}

func TestExecCannotStart(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	r := run(Spec{Kind: KindExec, Argv: []string{"/nonexistent/health-check"}, Timeout: 5 * time.Second})
	wantUnhealthy(t, r, "cannot start /nonexistent/health-check: no such file or directory")
	r = run(Spec{Kind: KindExec, Argv: []string{"no-such-health-command-on-path"}, Timeout: 5 * time.Second})
	wantUnhealthy(t, r, "cannot start no-such-health-command-on-path: not found in the service's PATH (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin): give an absolute path")
	wantUnhealthy(t, run(Spec{Kind: KindExec}), "no command to run")
}

func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	const timeout = 300 * time.Millisecond
	r := within(t, 5*timeout, func() Result {
		return run(Spec{Kind: KindExec, Argv: []string{"/bin/sleep", "30"}, Timeout: timeout})
	})
	wantUnhealthy(t, r, "timeout after 300ms (command still running, killed)")

	// The helper leaves a grandchild in its group: the timeout must take it too.
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	r = within(t, 5*2*time.Second, func() Result {
		return run(Spec{Kind: KindExec, Argv: []string{os.Args[0]}, Timeout: 2 * time.Second,
			Env: map[string]string{helperEnv: "spawn", "PROBE_PIDFILE": pidFile}})
	})
	wantUnhealthy(t, r, "timeout after 2s (command still running, killed)")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("helper never reported its grandchild: %v (output %v)", err, r.Detail["output"])
	}
	pid, _ := strconv.Atoi(string(b))
	testutil.WaitFor(t, 5*time.Second, "grandchild "+string(b)+" to die with its group", func() bool { return !alive(pid) })
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the state follows the command name
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestExecOutputTailCapped(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	r := run(Spec{Kind: KindExec, Argv: []string{os.Args[0]}, Env: map[string]string{helperEnv: "chatter"}, Timeout: 5 * time.Second})
	wantUnhealthy(t, r, "exit status 3")
	out, _ := r.Detail["output"].(string)
	if len(out) != maxOutput || !strings.HasSuffix(out, "\nEND-MARKER") {
		t.Fatalf("output is %d bytes ending %q, want the last %d bytes ending with END-MARKER", len(out), out[max(0, len(out)-20):], maxOutput)
	}
	if r.Detail["output_truncated"] != true || r.Detail["exit_code"] != 3 {
		t.Fatalf("detail truncated=%v exit_code=%v, want true and 3", r.Detail["output_truncated"], r.Detail["exit_code"])
	}
}

func TestExecEnvAndDir(t *testing.T) {
	requireLinux(t)
	t.Setenv("AGENT_ONLY", "from-agent") // the caller's environment never reaches the check (svcenv)
	dir := t.TempDir()
	r := run(Spec{Kind: KindExec, Argv: []string{os.Args[0], "--token", "argv-secret"}, Dir: dir, Timeout: 5 * time.Second,
		Env: map[string]string{helperEnv: "env", "PROBE_SECRET": "s3cr3t-value"}})
	wantHealthy(t, r)
	out, _ := r.Detail["output"].(string)
	if !strings.Contains(out, "cwd="+dir+"\n") {
		t.Fatalf("output %q does not show cwd %s", out, dir)
	}
	if strings.Contains(out, "s3cr3t-value") || !strings.Contains(out, "secret=[redacted]") {
		t.Fatalf("output %q shows an env value; want it [redacted]", out)
	}
	if want := os.Args[0] + " --token [redacted]"; r.Target != want {
		t.Fatalf("target = %q, want %q", r.Target, want)
	}
}

// An exec check owns its tree: what the command left behind is ended when
// the command ends, not only on timeout (else a health script leaving
// `sleep 30 &` behind piles up a process per cycle).
func TestExecEndsGrandchildrenWhenItExits(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		script  string
		healthy bool
	}{
		{"exit 0", "sleep 30 & echo $! > \"$PIDFILE\"; exit 0", true},
		{"exit 1", "sleep 30 & echo $! > \"$PIDFILE\"; exit 1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
			r := within(t, 10*time.Second, func() Result {
				return run(Spec{Kind: KindExec, Argv: []string{"/bin/sh", "-c", tc.script}, Timeout: 5 * time.Second,
					Env: map[string]string{"PIDFILE": pidFile}})
			})
			if r.Healthy != tc.healthy {
				t.Fatalf("healthy = %v (%s), want %v", r.Healthy, r.Reason, tc.healthy)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pid <= 0 {
				t.Fatalf("bad pid %q", b)
			}
			testutil.WaitFor(t, 5*time.Second, "grandchild "+strings.TrimSpace(string(b))+" to end with the check", func() bool { return !alive(pid) })
			if r.Latency > 2*time.Second {
				t.Errorf("the check took %s: it waited for the grandchild's pipe instead of ending it", r.Latency)
			}
		})
	}
}
