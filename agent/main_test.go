package agent

import (
	"context"
	"os"
	"testing"

	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
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

// testEnv is the supervisor tests' fixture (testenv.Env: a state dir, a
// config with the given services and jobs loaded through the real loader, a
// real ledger) and a supervisor on its ledger (to act as `svc-ctl start`
// would beside the agent).
type testEnv struct {
	*testenv.Env
	sup *watchdog.Supervisor
}

func newEnv(t testing.TB, svcs ...testutil.Service) *testEnv {
	t.Helper()
	return envOf(t, testenv.Services(testsvcBin, svcs...))
}

// jobEnv is a state dir with jobs only.
func jobEnv(t testing.TB, jobsToml string) *testEnv { return envOf(t, jobsToml) }

func envOf(t testing.TB, body string) *testEnv {
	t.Helper()
	e := testenv.Supervised(t, body)
	return &testEnv{Env: e, sup: watchdog.NewSupervisor(e.Cfg, e.Store, testenv.Quiet())}
}

func (e *testEnv) ensure(name string, req watchdog.Request) watchdog.Result {
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

func wantResult(t *testing.T, r watchdog.Result, outcome runtrace.Outcome, reason runtrace.Reason) {
	t.Helper()
	if r.Outcome != outcome || r.Reason != reason {
		t.Fatalf("got %s/%s (%s), want %s/%s", r.Outcome, r.Reason, r.Message, outcome, reason)
	}
}

func jobCommand(code int, sleep, say string) string {
	return testenv.JobCommand(testsvcBin, code, sleep, say)
}
