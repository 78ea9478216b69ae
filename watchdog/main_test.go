package watchdog

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

var testsvcBin string

func TestMain(m *testing.M) { os.Exit(testsvc.RunTests(m, &testsvcBin)) }

// testEnv is one state dir and config with the given services, loaded
// through the real config loader, and a supervisor recording to a real
// ledger.
type testEnv struct {
	t     testing.TB
	cfg   *config.Config
	store *runtrace.Store
	sup   *Supervisor
}

func newEnv(t testing.TB, svcs ...testutil.Service) *testEnv {
	t.Helper()
	var b strings.Builder
	for _, s := range svcs {
		b.WriteString(s.TOML(testsvcBin))
	}
	return envOf(t, b.String())
}

// envOf is a state dir and a supervisor for the config body given as TOML.
func envOf(t testing.TB, body string) *testEnv {
	t.Helper()
	cfg := testutil.Config(t, `drain_timeout = "3s"`, body)
	e := &testEnv{t: t, cfg: cfg, store: testenv.Ledger(t, cfg)}
	e.sup = NewSupervisor(cfg, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return e
}

func (e *testEnv) ensure(name string, req Request) Result {
	e.t.Helper()
	if req.Trigger == "" {
		req.Trigger = runtrace.TriggerManual
	}
	r, err := e.sup.Ensure(context.Background(), name, req)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *testEnv) pid(name string) proc.Identity {
	e.t.Helper()
	id, err := proc.ReadPidFile(e.sup.Paths.Pid(name))
	if err != nil {
		e.t.Fatalf("pid file of %s: %v", name, err)
	}
	return id
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
