//go:build linux

package jobs

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// A job whose dependency is down is failed/dependency-failed naming the
// target, and its command is not started; once the dependency is up the
// job runs and completes.
func TestJobDependencyDownThenUp(t *testing.T) {
	dep := testutil.FreeAddr(t)
	ran := filepath.Join(t.TempDir(), "ran")
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "pull"
schedule = "@daily"
timezone = "UTC"
command = ["/usr/bin/touch", %q]
  [[job.depends]]
  kind = "tcp"
  address = %q
  timeout = "500ms"
`, ran, dep))
	j := e.cfg.Job("pull")
	res := runJobT(context.Background(), e.paths, j, redact.New())
	if res.Outcome != runtrace.OutcomeFailed || res.Reason != runtrace.ReasonDependencyFailed || !strings.Contains(fmt.Sprint(res.Detail["why"]), dep) {
		t.Fatalf("%s/%s %v; want failed/dependency-failed naming %s", res.Outcome, res.Reason, res.Detail, dep)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Fatal("the command ran though its dependency was down")
	}
	ln, err := net.Listen("tcp", dep)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res = runJobT(context.Background(), e.paths, j, redact.New())
	if res.Outcome != runtrace.OutcomeOK || res.Reason != runtrace.ReasonCompleted {
		t.Fatalf("%s/%s %v; want ok/completed with the dependency up", res.Outcome, res.Reason, res.Detail)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("the command did not run")
	}
}

// A job whose program is missing is failed/spawn-error naming it.
func TestJobSpawnError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "gone"
schedule = "@daily"
timezone = "UTC"
command = [%q]
`, missing))
	res := runJobT(context.Background(), e.paths, e.cfg.Job("gone"), redact.New())
	if res.Reason != runtrace.ReasonSpawnError || !strings.Contains(fmt.Sprint(res.Detail["error"]), missing) {
		t.Fatalf("%s/%s %v; want failed/spawn-error naming %s", res.Outcome, res.Reason, res.Detail, missing)
	}
}
