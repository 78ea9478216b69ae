//go:build unix

package agent

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
	res := runJobT(context.Background(), e.sup.Paths, e.cfg.Job("hang"), redact.New(e.cfg.SecretValues()...))
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
