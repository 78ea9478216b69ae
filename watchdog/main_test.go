package watchdog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/process"

	"svcctl/config"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

var testsvcBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "svcctl-watchdog-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testsvcBin, err = testsvc.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

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
	cfg := testutil.Config(t, `drain_timeout = "3s"`, b.String())
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, cfg: cfg, store: st}
	e.sup = NewSupervisor(cfg, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		for _, s := range cfg.Services {
			e.stopService(s.Name)
		}
		st.Close()
	})
	return e
}

// stopService kills whatever instance the pid file names (identity-checked).
func (e *testEnv) stopService(name string) {
	id, err := proc.ReadPidFile(e.sup.Paths.Pid(name))
	if err != nil {
		return
	}
	proc.Stop(context.Background(), id, 2*time.Second)
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
