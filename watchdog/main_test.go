package watchdog

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/process"

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

// testsvcPIDs lists the live processes running the testsvc binary.
func testsvcPIDs(t *testing.T) map[int32]bool {
	t.Helper()
	want, _ := filepath.EvalSymlinks(testsvcBin)
	ps, err := process.Processes()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]bool{}
	for _, p := range ps {
		exe, err := p.Exe()
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(exe); err == nil && real == want && proc.Alive(p.Pid) {
			out[p.Pid] = true
		}
	}
	return out
}

// stopService stops the instance the pid file names (identity-checked), as
// an outside stop would.
func (e *testEnv) stopService(name string) {
	if id, err := proc.ReadPidFile(e.sup.Paths.Pid(name)); err == nil {
		proc.Stop(context.Background(), id, 2*time.Second)
	}
}
