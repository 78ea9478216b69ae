//go:build unix

package watchdog

import (
	"errors"
	"os"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// An agent killed between a spawn and the pid file's write leaves a
// running instance and its pending record. The next cycle names that
// instance (not a stranger on the port), judges it healthy, and writes its
// pid file; the pending record is gone.
func TestCycleAdoptsTheInstanceOfADeadSpawner(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	pidPath := e.sup.Paths.Pid("web")
	c, err := proc.Spawn(proc.SpawnSpec{Argv: e.Cfg.Service("web").Command, Name: "web", Record: pidPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Kill(c.Identity) })
	// The spawner dies here: no pid file is written.
	testutil.WaitFor(t, 10*time.Second, "the instance serving", func() bool { return testutil.Healthy(addr) })
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)
	rec, err := proc.ReadInstance(pidPath)
	if err != nil || rec.PID != c.PID || rec.Resolved {
		t.Fatalf("pid file = pid %d resolved %v (%v); want pid %d written to the pid file", rec.PID, rec.Resolved, err, c.PID)
	}
	if _, err := os.Stat(proc.PendingPath(pidPath)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the pending record is still there: %v", err)
	}
}
