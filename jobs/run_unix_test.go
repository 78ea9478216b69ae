//go:build unix

package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/internal/redact"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

func TestTimeoutKillsProcessTree(t *testing.T) {
	dir := t.TempDir()
	childPID := filepath.Join(dir, "child.pid")
	// The job starts a grandchild and waits: the timeout must take both.
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "hang"
schedule = "@every 1h"
timezone = "UTC"
command = ["/bin/sh", "-c", "sleep 300 & echo $! > %s; wait"]
timeout = "1s"
`, childPID))
	res := runJobT(context.Background(), e.paths, e.cfg.Job("hang"), redact.New(e.cfg.SecretValues()...))
	if res.Outcome != runtrace.OutcomeFailed || res.Reason != runtrace.ReasonTimeout {
		t.Fatalf("got %s/%s %v", res.Outcome, res.Reason, res.Detail)
	}
	b, err := os.ReadFile(childPID)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	testutil.WaitFor(t, 5*time.Second, "grandchild gone", func() bool { return !proc.Alive(int32(pid)) })
}

// A job whose helper leaves its session (setsid, as a daemon does): the
// timeout takes it too, proven a member by the marker in its environment
// (failed before: only the job's session was stopped).
func TestTimeoutKillsSetsidHelper(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	dir := t.TempDir()
	childPID := filepath.Join(dir, "child.pid")
	e := jobEnv(t, fmt.Sprintf(`
[[job]]
name = "hang"
schedule = "@every 1h"
timezone = "UTC"
command = ["/bin/sh", "-c", "/usr/bin/setsid -f /bin/sh -c 'echo $$ > %s; exec sleep 300'; sleep 300"]
timeout = "1s"
`, childPID))
	res := runJobT(context.Background(), e.paths, e.cfg.Job("hang"), redact.New(e.cfg.SecretValues()...))
	if res.Reason != runtrace.ReasonTimeout {
		t.Fatalf("got %s/%s %v", res.Outcome, res.Reason, res.Detail)
	}
	b, err := os.ReadFile(childPID)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	testutil.WaitFor(t, 5*time.Second, "the setsid helper gone", func() bool { return !proc.Alive(int32(pid)) })
}
