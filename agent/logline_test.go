package agent

import (
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestServiceSpawnedLogsRunIDOnce: the service.spawned line
// names its run once (it carried "run_id" twice: the cycle's logger and
// the call both added it, and a JSON reader keeps only one).
func TestServiceSpawnedLogsRunIDOnce(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h"})
	ra := startAgent(t, e, Options{})
	var line string
	testutil.WaitFor(t, 20*time.Second, "a service.spawned line", func() bool {
		for _, l := range strings.Split(ra.log.String(), "\n") {
			if strings.Contains(l, `"msg":"service.spawned"`) {
				line = l
				return true
			}
		}
		return false
	})
	if n := strings.Count(line, `"run_id":`); n != 1 {
		t.Fatalf("run_id %d times in %s", n, line)
	}
}
