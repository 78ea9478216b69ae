package probe

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/internal/svcenv"
	"svcctl/internal/testutil"
)

// The test binary is the command (helpers_test.go): it stands in for true,
// false, sleep and sh on every OS.

// helper is an exec spec running the test binary in mode with env.
func helper(mode string, timeout time.Duration, env ...string) Spec {
	e := map[string]string{helperEnv: mode}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return Spec{Kind: KindExec, Argv: []string{os.Args[0]}, Timeout: timeout, Env: e}
}

func TestExecExitStatus(t *testing.T) {
	t.Parallel()
	r := run(helper("exit-with", 5*time.Second, "PROBE_EXIT", "0"))
	wantHealthy(t, r)
	if r.Detail["exit_code"] != 0 || r.Target != os.Args[0] {
		t.Fatalf("exit_code %v target %q, want 0 and %s", r.Detail["exit_code"], r.Target, os.Args[0])
	}
	r = run(helper("exit-with", 5*time.Second, "PROBE_EXIT", "1"))
	wantUnhealthy(t, r, "exit status 1")
	if r.Detail["exit_code"] != 1 {
		t.Fatalf("exit_code = %v, want 1", r.Detail["exit_code"])
	}
}

func TestExecCannotStart(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "health-check")
	r := run(Spec{Kind: KindExec, Argv: []string{missing}, Timeout: 5 * time.Second})
	wantUnhealthy(t, r, "cannot start "+missing+": "+noSuchFile)
	r = run(Spec{Kind: KindExec, Argv: []string{"no-such-health-command-on-path"}, Timeout: 5 * time.Second})
	wantUnhealthy(t, r, `cannot start no-such-health-command-on-path: "no-such-health-command-on-path" is not in the PATH a service gets (`+
		svcenv.PathOf(svcenv.Build(nil, nil))+"), nor in this svc-ctl's own PATH: install it, or write its absolute path in the command")
	wantUnhealthy(t, run(Spec{Kind: KindExec}), "no command to run")
}

func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	r := within(t, 5*timeout, func() Result { return run(helper("linger", timeout)) })
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

// alive reports whether pid is a live (not zombie) run of the test binary.
func alive(pid int) bool { return testutil.Running(os.Args[0], "")[int32(pid)] }

func TestExecOutputTailCapped(t *testing.T) {
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
	t.Parallel()
	for _, tc := range []struct {
		name    string
		exit    string
		healthy bool
	}{
		{"exit 0", "0", true},
		{"exit 1", "1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
			r := within(t, 10*time.Second, func() Result {
				return run(helper("leave-child", 5*time.Second, "PROBE_PIDFILE", pidFile, "PROBE_EXIT", tc.exit))
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
