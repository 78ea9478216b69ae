package testenv

import (
	"log/slog"
	"strings"
	"testing"

	"svcctl/config"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Env is the supervisor tests' fixture: one state dir and a config with the
// given services and jobs, loaded through the real config loader (with a 3 s
// drain_timeout), and a real ledger. The watchdog's and the agent's tests both
// start from it and put their supervisor beside it (watchdog.NewSupervisor on
// Cfg, Store and Quiet): the watchdog's own tests cannot import a package that
// imports the watchdog, so the supervisor is theirs to add.
type Env struct {
	T     testing.TB
	Cfg   *config.Config
	Store *runtrace.Store
}

// Supervised is the fixture for the config body given as TOML.
func Supervised(t testing.TB, body string) *Env {
	t.Helper()
	cfg := testutil.Config(t, `drain_timeout = "3s"`, body)
	return &Env{T: t, Cfg: cfg, Store: Ledger(t, cfg)}
}

// Services is the TOML of svcs, each run by the tests' service binary bin.
func Services(bin string, svcs ...testutil.Service) string {
	var b strings.Builder
	for _, s := range svcs {
		b.WriteString(s.TOML(bin))
	}
	return b.String()
}

// Pid is the identity the pid file of service name records; the test fails
// when there is none.
func (e *Env) Pid(name string) proc.Identity {
	e.T.Helper()
	id, err := proc.ReadPidFile(state.PathsOf(e.Cfg).Pid(name))
	if err != nil {
		e.T.Fatalf("pid file of %s: %v", name, err)
	}
	return id
}

// Quiet is the supervisor's logger in these tests: its lines are not the
// test's output.
func Quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
