package jobs

import (
	"context"
	"os"
	"testing"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/state"
)

var testsvcBin string

func TestMain(m *testing.M) { os.Exit(testsvc.RunTests(m, &testsvcBin)) }

// jobsEnv is one state dir and a config with the given jobs, loaded through
// the real config loader.
type jobsEnv struct {
	cfg   *config.Config
	paths state.Paths
}

func jobEnv(t testing.TB, jobsToml string) *jobsEnv {
	t.Helper()
	cfg := testutil.Config(t, "", jobsToml)
	return &jobsEnv{cfg: cfg, paths: state.PathsOf(cfg)}
}

func jobCommand(code int, sleep, say string) string {
	return testenv.JobCommand(testsvcBin, code, sleep, say)
}

// runJobT runs a job as the agent does, its output reader on a plain
// goroutine (the agent's own runs start it under L2).
func runJobT(ctx context.Context, p state.Paths, j *config.Job, red *redact.Redactor) Result {
	return runJob(ctx, p, j, red, func(_ string, fn func(), _ func(any, string)) { go fn() }, Hooks{})
}
