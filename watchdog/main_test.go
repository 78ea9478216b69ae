package watchdog

import (
	"context"
	"os"
	"testing"
	"time"

	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

var testsvcBin string

func TestMain(m *testing.M) { os.Exit(testsvc.RunTests(m, &testsvcBin)) }

// testEnv is the supervisor tests' fixture (testenv.Env: a state dir, a
// config loaded through the real loader, a real ledger) with a supervisor
// recording to that ledger.
type testEnv struct {
	*testenv.Env
	sup *Supervisor
}

func newEnv(t testing.TB, svcs ...testutil.Service) *testEnv {
	t.Helper()
	return envOf(t, testenv.Services(testsvcBin, svcs...))
}

// envOf is the fixture for the config body given as TOML.
func envOf(t testing.TB, body string) *testEnv {
	t.Helper()
	e := testenv.Supervised(t, body)
	return &testEnv{Env: e, sup: NewSupervisor(e.Cfg, e.Store, testenv.Quiet())}
}

func (e *testEnv) ensure(name string, req Request) Result {
	e.T.Helper()
	if req.Trigger == "" {
		req.Trigger = runtrace.TriggerManual
	}
	r, err := e.sup.Ensure(context.Background(), name, req)
	if err != nil {
		e.T.Fatal(err)
	}
	return r
}

func wantResult(t *testing.T, r Result, outcome runtrace.Outcome, reason runtrace.Reason) {
	t.Helper()
	if r.Outcome != outcome || r.Reason != reason {
		t.Fatalf("got %s/%s (%s), want %s/%s", r.Outcome, r.Reason, r.Message, outcome, reason)
	}
}

// testsvcPIDs lists the live processes running the testsvc binary for the
// service on addr: other tests' instances are not this test's business (under
// the Windows harness every package's tests share one prebuilt testsvc, and
// two test binaries run at once).
func testsvcPIDs(t *testing.T, addr string) map[int32]bool {
	t.Helper()
	return testutil.Running(testsvcBin, addr)
}

// stopService stops the instance the pid file names (identity-checked), as
// an outside stop would.
func (e *testEnv) stopService(name string) {
	if id, err := proc.ReadPidFile(e.sup.Paths.Pid(name)); err == nil {
		proc.Stop(context.Background(), id, 2*time.Second)
	}
}
