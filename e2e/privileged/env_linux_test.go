//go:build linux

package privileged

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// `svc-ctl exec JOB -- CMD` with a job `user` passed the caller's whole
// environment (a root secret, HOME=/root) to a process that runs as that
// user, while the agent's runs of the same job were clean. Now both get
// that user's base environment plus env_file and env: the environment
// exec gives is the agent's, variable for variable.
func TestExecWithJobUserGetsTheAgentsEnvironment(t *testing.T) {
	requirePrivileged(t)
	envFile := filepath.Join(rootDir(t, "env"), "j.env")
	writeAs(t, envFile, "FROM_ENV_FILE=yes\n", 0o600, 0, 0)
	cfg, state := rootConfig(t, fmt.Sprintf(`[[job]]
name = "j"
schedule = "@every 1s"
timezone = "UTC"
command = ["/usr/bin/env"]
user = %q
env_file = %q
env = { FROM_ENV = "yes" }
`, attacker.name, envFile))
	caller := []string{"ROOT_SECRET=tok-root-only-4711", "HOME=/root", "HTTPS_PROXY=http://127.0.0.1:9"}
	r := asRoot(t, caller, "--config", cfg, "exec", "j", "--", "/usr/bin/env")
	if r.code != 0 {
		t.Fatalf("exec:\n%v", r)
	}
	for _, leak := range []string{"ROOT_SECRET", "tok-root-only", "HOME=/root", "HTTPS_PROXY"} {
		if strings.Contains(r.stdout, leak) {
			t.Errorf("the caller's %s reached the job's user:\n%s", leak, r.stdout)
		}
	}
	startAgent(t, cfg, false)
	last := filepath.Join(state, "jobs", "j", "last.log")
	var agentRun string
	testutil.WaitFor(t, 30*time.Second, "the agent's run of the job", func() bool {
		b, _ := os.ReadFile(last)
		agentRun = string(b)
		return strings.Contains(agentRun, "FROM_ENV=yes")
	})
	if !strings.Contains(agentRun, "SVCCTL_INSTANCE=") {
		t.Errorf("the agent's run lacks its instance marker:\n%s", agentRun)
	}
	if got, want := envLines(r.stdout), envLines(agentRun); !slices.Equal(got, want) {
		t.Fatalf("exec's environment differs from the agent's run of the same job:\nexec:  %q\nagent: %q", got, want)
	}
	for _, want := range []string{"FROM_ENV=yes", "FROM_ENV_FILE=yes", "USER=" + attacker.name, "LOGNAME=" + attacker.name} {
		if !slices.Contains(envLines(r.stdout), want) {
			t.Errorf("exec's environment lacks %s: %q", want, envLines(r.stdout))
		}
	}
}

// envLines is an `env` listing, sorted, without SVCCTL_RESULT (a file of
// each run's own).
func envLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		// svc-ctl's own variables: the result file (per run) and the
		// instance marker (the agent's runs carry it so a timeout stops
		// every process of the run; a foreground exec's user stops it)
		if l != "" && !strings.HasPrefix(l, "SVCCTL_RESULT=") && !strings.HasPrefix(l, "SVCCTL_INSTANCE=") {
			ls = append(ls, l)
		}
	}
	slices.Sort(ls)
	return ls
}

// A job's user swapped its SVCCTL_RESULT directory for a link to another
// directory, and the agent read the first line of a root-only file named
// result (it reached the command channel). Now the run's directory is in
// a root-owned 0711 parent: the job cannot move it, and whatever it puts in
// its place is read through the pinned parent, never through a link.
func TestAttackResultDirSwap(t *testing.T) {
	requirePrivileged(t)
	secret := rootDir(t, "secret")
	os.Chmod(secret, 0o755) // the job may see it, not read the file
	writeAs(t, filepath.Join(secret, "result"), "failed stolen-by-the-job: root only\n", 0o600, 0, 0)
	cfg, _ := rootConfig(t, fmt.Sprintf(`[[job]]
name = "j"
schedule = "@daily"
timezone = "UTC"
external = true
user = %q
`, attacker.name))
	// The job's own attempt, as its user: move the run's directory away,
	// put a link to the root-only directory there; then a link in place of
	// the file itself.
	attack := fmt.Sprintf(`d=$(dirname "$SVCCTL_RESULT")
mv "$d" "$d.away" && ln -s %q "$d"
ln -s %q "$SVCCTL_RESULT"
exit 0`, secret, filepath.Join(secret, "result"))
	r := asRoot(t, nil, "--config", cfg, "exec", "j", "--", "/bin/sh", "-c", attack)
	if !strings.Contains(r.stderr, "Permission denied") {
		t.Errorf("the job could move its result directory:\n%v", r)
	}
	runs := asRoot(t, nil, "--config", cfg, "runs", "--job", "j", "--json")
	if strings.Contains(runs.stdout, "stolen-by-the-job") {
		t.Fatalf("the agent read the root-only file through the job's link:\n%s", runs.stdout)
	}
	if !strings.Contains(runs.stdout, "symbolic link") {
		t.Errorf("the run does not say its result was a link:\n%s", runs.stdout)
	}
}
