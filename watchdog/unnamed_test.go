package watchdog

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

// noOwners stands in for a system that names no socket's owner (Wine's
// GetExtendedTcpTable gives pid 0; a process of another user an
// unprivileged agent may not read): no member is seen listening, and the
// port's holder has no name.
func noOwners(t *testing.T) {
	ml, ph := memberListens, portHolder
	t.Cleanup(func() { memberListens, portHolder = ml, ph })
	memberListens = func(proc.Member, uint32) bool { return false }
	portHolder = func(context.Context, uint32) (*proc.Holder, error) {
		return nil, errors.New("GetExtendedTcpTable names no owning process (pid 0)")
	}
}

// Where the OS names no port's owner, a start whose health port was free
// at the spawn and which has a member alive is the new instance's (it
// failed before: every start was start-failed, "held by a process svc-ctl
// cannot name"); the row says how it was judged. A port already held
// before the spawn still fails the start, spawning nothing.
func TestStartJudgedWhenThePortsOwnerCannotBeNamed(t *testing.T) {
	noOwners(t)
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr})
	r := e.ensure("web", Request{})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonStarted)
	if !strings.Contains(r.Detail.Served, "cannot name") || !strings.Contains(r.Message, "free when the instance was spawned") {
		t.Fatalf("the start does not say how it was judged: %q, served %q", r.Message, r.Detail.Served)
	}

	wantResult(t, e.ensure("web", Request{Restart: true}), runtrace.OutcomeOK, runtrace.ReasonRestarted)
	e.stopService("web")
	testutil.WaitFor(t, 10*time.Second, "the port free", func() bool { return !testutil.Healthy(addr) })
	stranger := exec.Command(testsvcBin, "--addr", addr)
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Process.Kill(); stranger.Wait() })
	testutil.WaitFor(t, 10*time.Second, "the stranger serving", func() bool { return testutil.Healthy(addr) })
	r = e.ensure("web", Request{Restart: true})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonStartFailed)
	if r.Detail.PID != 0 {
		t.Fatalf("a start spawned pid %d beside the port's holder", r.Detail.PID)
	}
}
