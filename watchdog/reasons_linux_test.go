package watchdog

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

// dependsTCP is a [[service.depends]] block on addr, appended after a
// service's TOML.
func dependsTCP(addr string) string {
	return "[[service.depends]]\nkind = \"tcp\"\naddress = \"" + addr + "\"\ntimeout = \"500ms\"\n"
}

// A dependency that is down: the dead service is not restarted (restarting
// cannot fix an upstream), the verdict is failed/dependency-failed naming the
// target. Once the dependency is up, the next cycle starts it and it is
// healthy; then the dependency going down again leaves the running instance
// alone, still failed/dependency-failed.
func TestServiceDependencyDownThenUp(t *testing.T) {
	addr, dep := testutil.FreeAddr(t), testutil.FreeAddr(t)
	e := envOf(t, testutil.Service{Name: "web", Addr: addr}.TOML(testsvcBin)+dependsTCP(dep))
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonDependencyFailed)
	if !strings.Contains(r.Message, dep) {
		t.Fatalf("message %q does not name the dependency %s", r.Message, dep)
	}
	if _, err := os.Stat(e.sup.Paths.Pid("web")); !os.IsNotExist(err) || testutil.Healthy(addr) {
		t.Fatal("a service whose dependency is down was started")
	}

	ln, err := net.Listen("tcp", dep)
	if err != nil {
		t.Fatal(err)
	}
	r = e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if !testutil.Healthy(addr) {
		t.Fatal("started but not healthy")
	}
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning)

	ln.Close()
	before := e.Pid("web")
	r = e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonDependencyFailed)
	if e.Pid("web") != before || !testutil.Healthy(addr) {
		t.Fatal("a healthy service was touched for its dependency")
	}
}

// Another svc-ctl process holds the service lock: a scheduled cycle does
// nothing and says so.
func TestLockHeldIsSkipped(t *testing.T) {
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t)})
	l, ok, err := state.TryLock(e.sup.Paths.Lock("web"))
	if err != nil || !ok {
		t.Fatalf("take the lock: %v %v", ok, err)
	}
	defer l.Unlock()
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeSkipped, runtrace.ReasonLockHeld)
	if _, err := os.Stat(e.sup.Paths.Pid("web")); !os.IsNotExist(err) {
		t.Fatal("spawned while another process held the lock")
	}
}

// A command that cannot be started is failed/spawn-error naming the path,
// and counts as a failed start (backoff).
func TestSpawnErrorNamesTheProgram(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-program")
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t), Command: []string{missing}})
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonSpawnError)
	if !strings.Contains(r.Message, missing) || r.Detail.BackoffUntil == nil {
		t.Fatalf("message %q detail %+v: want the path named and a backoff", r.Message, r.Detail)
	}
}

// retry_given_up: a given-up service is only probed, until its retry is due
// (judged on the injected clock); then one start is tried, and here it works.
func TestRetryGivenUp(t *testing.T) {
	addr := testutil.FreeAddr(t)
	flag := filepath.Join(t.TempDir(), "fixed")
	// The service fails until the flag file exists (a fix deployed meanwhile).
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, GiveUpAfter: 1, RetryGivenUp: "1h",
		Command: []string{"/bin/sh", "-c", `test -f "$1" || exit 1; exec "$2" --addr "$3"`, "sh", flag, testsvcBin, addr}})
	clock := testkit.NewClock(time.Now())
	e.sup.Now = clock.Now
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerSchedule}), runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	os.WriteFile(flag, nil, 0o600)

	clock.Advance(30 * time.Minute)
	r := e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeSkipped, runtrace.ReasonGivenUp)
	if r.Detail.NextTry == nil || !r.Detail.NextTry.Equal(clock.Now().Add(30*time.Minute).UTC()) {
		t.Fatalf("next try %v, want an hour after the failed start", r.Detail.NextTry)
	}

	clock.Advance(31 * time.Minute)
	r = e.ensure("web", Request{Trigger: runtrace.TriggerSchedule})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if r.Detail.State != state.Healthy {
		t.Fatalf("state %q after the retry, want healthy", r.Detail.State)
	}
}
