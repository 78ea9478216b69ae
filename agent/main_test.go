package agent

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"svcctl/config"
	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

var testsvcBin string

func TestMain(m *testing.M) {
	if path := os.Getenv(envPanicAgent); path != "" {
		os.Exit(runPanicAgent(path))
	}
	if path := os.Getenv(envTestAgent); path != "" {
		os.Exit(runTestAgent(path, os.Getenv(envTestAgentMode)))
	}
	os.Exit(testsvc.RunTests(m, &testsvcBin))
}

// testEnv is one state dir and config with the given services and jobs,
// loaded through the real config loader, and a supervisor on its ledger (to
// act as `svc-ctl start` would beside the agent).
type testEnv struct {
	t     testing.TB
	cfg   *config.Config
	store *runtrace.Store
	sup   *watchdog.Supervisor
}

func newEnv(t testing.TB, svcs ...testutil.Service) *testEnv {
	t.Helper()
	var b strings.Builder
	for _, s := range svcs {
		b.WriteString(s.TOML(testsvcBin))
	}
	return envOf(t, b.String())
}

// jobEnv is a state dir with jobs only.
func jobEnv(t testing.TB, jobsToml string) *testEnv { return envOf(t, jobsToml) }

func envOf(t testing.TB, body string) *testEnv {
	t.Helper()
	cfg := testutil.Config(t, `drain_timeout = "3s"`, body)
	e := &testEnv{t: t, cfg: cfg, store: testenv.Ledger(t, cfg)}
	e.sup = watchdog.NewSupervisor(cfg, e.store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return e
}

func (e *testEnv) ensure(name string, req watchdog.Request) watchdog.Result {
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

func wantResult(t *testing.T, r watchdog.Result, outcome runtrace.Outcome, reason runtrace.Reason) {
	t.Helper()
	if r.Outcome != outcome || r.Reason != reason {
		t.Fatalf("got %s/%s (%s), want %s/%s", r.Outcome, r.Reason, r.Message, outcome, reason)
	}
}

func jobCommand(code int, sleep, say string) string {
	return testenv.JobCommand(testsvcBin, code, sleep, say)
}
