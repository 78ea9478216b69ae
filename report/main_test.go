package report

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"svcctl/agent"
	"svcctl/config"
	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

var testsvcBin string

func TestMain(m *testing.M) { os.Exit(testsvc.RunTests(m, &testsvcBin)) }

// testEnv is one service "web" on a fresh state dir and ledger.
type testEnv struct {
	cfg   *config.Config
	p     state.Paths
	store *runtrace.Store
	addr  string
}

func newEnv(t *testing.T, interval string) *testEnv {
	t.Helper()
	addr := testutil.FreeAddr(t)
	cfg := testutil.Config(t, `drain_timeout = "3s"`, testutil.Service{Name: "web", Addr: addr, Interval: interval}.TOML(testsvcBin))
	return &testEnv{cfg: cfg, p: state.PathsOf(cfg), store: testenv.Ledger(t, cfg), addr: addr}
}

// startAgent runs a real agent on the env's config until stop or the end
// of the test: the evidence report reads is the evidence an agent leaves.
func startAgent(t *testing.T, e *testEnv) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, agent.Options{Config: e.cfg, Version: "test", LogWriter: io.Discard,
			MaxStagger: 200 * time.Millisecond, Ready: ready})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("agent exited at start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("agent not ready")
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("agent did not stop")
		}
	}
	t.Cleanup(stop)
	return stop
}
