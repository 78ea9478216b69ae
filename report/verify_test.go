package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testenv"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

func check(t *testing.T, r *VerifyReport, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return Check{}
}

var installed = InstallInfo{Known: true, Installed: true, Mode: "service", Platform: "test"}

// healthyHost runs an agent long enough to leave all the evidence, then
// returns the env a verify right now would see.
func healthyHost(t *testing.T) (*testEnv, VerifyEnv, func()) {
	t.Helper()
	e := newEnv(t, "2s")
	stop := startAgent(t, e)
	testutil.WaitFor(t, 15*time.Second, "a cycle and a heartbeat", func() bool {
		hb, _ := e.store.Heartbeats(context.Background())
		_, err := os.Stat(e.p.WatchdogLast())
		return len(hb) == 1 && testutil.Healthy(e.addr) && err == nil
	})
	return e, VerifyEnv{Now: time.Now(), BootTime: time.Now().Add(-time.Hour), Install: installed}, stop
}

func TestVerifyPassesOnAHealthyHost(t *testing.T) {
	e, env, _ := healthyHost(t)
	r := Verify(context.Background(), e.cfg, env)
	for _, c := range r.Checks {
		if c.Status != Pass {
			t.Errorf("%s: %s %s", c.Name, c.Status, c.Evidence)
		}
	}
	if !r.OK {
		t.Fatal("not OK")
	}
}

func TestVerifyFailsWithTheRightLine(t *testing.T) {
	e, env, stopAgent := healthyHost(t)
	ctx := context.Background()

	bad := env
	bad.Install = InstallInfo{Known: true, Installed: false, Platform: "unix-systemv"}
	if c := check(t, Verify(ctx, e.cfg, bad), "agent installed"); c.Status != Fail || !strings.Contains(c.Evidence, "svc-ctl install") {
		t.Errorf("not installed: %+v", c)
	}

	off := false
	bad = env
	bad.Install = InstallInfo{Known: true, Installed: true, Enabled: &off, Mode: "service", Platform: "linux-systemd"}
	if c := check(t, Verify(ctx, e.cfg, bad), "agent installed"); c.Status != Fail || !strings.Contains(c.Evidence, "NOT enabled") {
		t.Errorf("installed, not enabled: %+v", c)
	}

	bad = env
	bad.BootTime = time.Now().Add(time.Minute) // the host booted after the agent started
	if c := check(t, Verify(ctx, e.cfg, bad), "agent started since boot"); c.Status != Fail || !strings.Contains(c.Evidence, "autostart did not fire") {
		t.Errorf("started before boot: %+v", c)
	}

	bad = env
	bad.Now = time.Now().Add(10 * time.Minute) // as if the agent had hung for 10 minutes
	r := Verify(ctx, e.cfg, bad)
	if c := check(t, r, "heartbeat fresh"); c.Status != Fail || !strings.Contains(c.Evidence, "stale") {
		t.Errorf("stale heartbeat: %+v", c)
	}
	if c := check(t, r, "watchdog.last.json fresh"); c.Status != Fail {
		t.Errorf("old watchdog.last.json: %+v", c)
	}
	if c := check(t, r, "service web cycled"); c.Status != Fail {
		t.Errorf("service not cycled: %+v", c)
	}

	// A forgotten pause: no expiry, two days old.
	p := state.Pause{At: time.Now().Add(-48 * time.Hour), Reason: "debugging", By: "someone"}
	if err := state.WritePause(e.p.Paused("web"), p); err != nil {
		t.Fatal(err)
	}
	if c := check(t, Verify(ctx, e.cfg, env), "no forgotten pause"); c.Status != Warn || !strings.Contains(c.Evidence, "debugging") {
		t.Errorf("forgotten pause: %+v", c)
	}
	state.RemovePause(e.p.Paused("web"))

	// A stopped agent has no heartbeat.
	stopAgent()
	if c := check(t, Verify(ctx, e.cfg, env), "heartbeat fresh"); c.Status != Fail || !strings.Contains(c.Evidence, "not running") {
		t.Errorf("stopped agent: %+v", c)
	}
}

func TestVerifyGivenUpAndCrashLog(t *testing.T) {
	e, env, stopAgent := healthyHost(t)
	ctx := context.Background()
	stopAgent() // no cycle may rewrite the state under the test
	st, _ := state.LoadService(e.p.StateFile("web"))
	st.State, st.Failures = state.GivenUp, 5
	state.SaveService(e.p.StateFile("web"), st, true)
	r := Verify(ctx, e.cfg, env)
	if c := check(t, r, "no given-up service"); c.Status != Fail || !strings.Contains(c.Evidence, "gave up") {
		t.Errorf("given-up: %+v", c)
	}
	os.WriteFile(e.p.CrashLog(), []byte("fatal error: concurrent map writes\n"), 0o600)
	if c := check(t, Verify(ctx, e.cfg, env), "no unread crash.log"); c.Status != Fail {
		t.Errorf("crash.log: %+v", c)
	}
}

func TestVerifyWithoutLedger(t *testing.T) {
	e := newEnv(t, "10m")
	e.store.Close()
	os.Remove(e.p.DB())
	r := Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now(), Install: installed})
	if c := check(t, r, "ledger readable"); c.Status != Fail {
		t.Fatalf("%+v", c)
	}
	if r.OK {
		t.Fatal("verify OK without a ledger")
	}
}

// A link planted in the state dir makes every verb that acts refuse the
// whole state dir (state.Check), and the agent write no snapshot through
// it: verify must FAIL naming the path and the fix, not pass every layer.
func TestVerifyFailsOnAStateDirTheVerbsRefuse(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the state dir's files are checked by a privileged svc-ctl only: run as root (CI does)")
	}
	e, env, _ := healthyHost(t)
	ctx := context.Background()
	if c := check(t, Verify(ctx, e.cfg, env), "state dir trusted"); c.Status != Pass {
		t.Fatalf("before the link: %+v", c)
	}
	link := e.p.Snapshots("web")
	os.Remove(link)
	if err := os.Symlink(filepath.Join(t.TempDir(), "victim"), link); err != nil {
		t.Fatal(err)
	}
	if err := state.Check(e.p, true); err == nil {
		t.Fatal("state.Check accepts the planted link: the test proves nothing")
	}
	r := Verify(ctx, e.cfg, env)
	c := check(t, r, "state dir trusted")
	if c.Status != Fail || !strings.Contains(c.Evidence, link) || !strings.Contains(c.Evidence, "rm "+link) {
		t.Fatalf("planted link: %+v; want FAIL naming %s and 'rm %s'", c, link, link)
	}
	if r.OK {
		t.Fatal("verify is OK with a state dir every privileged verb refuses")
	}

	// A state file another user can write: the fix is the chmod.
	os.Remove(link)
	sf := e.p.StateFile("web")
	if err := os.Chmod(sf, 0o666); err != nil {
		t.Fatal(err)
	}
	if c := check(t, Verify(ctx, e.cfg, env), "state dir trusted"); c.Status != Fail || !strings.Contains(c.Evidence, "chmod go-w "+sf) {
		t.Fatalf("group/world-writable %s: %+v; want FAIL with the chmod", sf, c)
	}
}

// The state dir itself replaced by a link is refused by every user's
// svc-ctl, privileged or not.
func TestVerifyFailsOnAStateDirThatIsALink(t *testing.T) {
	e := newEnv(t, "1h")
	real := t.TempDir()
	os.RemoveAll(e.p.State)
	if err := os.Symlink(real, e.p.State); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(e.p.State); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("this system does not report the link it made as one (Wine 8 does not): %v", err)
	}
	r := Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now(), Install: installed})
	if c := check(t, r, "state dir trusted"); c.Status != Fail || !strings.Contains(c.Evidence, e.p.State+" is a symbolic link") {
		t.Fatalf("state dir is a link: %+v", c)
	}
}

// TestVerifyServiceCycledButNeverHealthy: a service that cycles
// on time but has never once been healthy does not pass "cycled".
func TestVerifyServiceCycledButNeverHealthy(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg := testutil.Config(t, `drain_timeout = "3s"`, testutil.Service{Name: "web", Addr: addr, Interval: "1s",
		Args: []string{"--exit-now", "3"}, Backoff: "0s"}.TOML(testsvcBin))
	e := &testEnv{cfg: cfg, p: state.PathsOf(cfg), store: testenv.Ledger(t, cfg), addr: addr}
	startAgent(t, e)
	testutil.WaitFor(t, 15*time.Second, "a failed start", func() bool {
		n, _ := e.store.Count(context.Background(), runtrace.Filter{JobID: "watchdog:web", Reason: runtrace.ReasonStartFailed})
		return n > 0
	})
	c := check(t, Verify(context.Background(), e.cfg, VerifyEnv{Now: time.Now(), BootTime: time.Now().Add(-time.Hour), Install: installed}), "service web cycled")
	if c.Status != Fail || !strings.Contains(c.Evidence, "never been healthy") {
		t.Fatalf("%s: %s", c.Status, c.Evidence)
	}
}
