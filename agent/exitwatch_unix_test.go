//go:build unix

package agent

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/state"
)

// An exit watcher outlives the loops (a service outlives its agent). When
// the instance ends while another svc-ctl process holds the service's lock,
// the watcher waits for that lock; an agent that stops meanwhile must not
// leave it behind to touch the state dir after it returned: CI saw the
// test's state dir recreated under its RemoveAll.
func TestNoWatcherTouchesTheStateDirAfterTheAgentReturned(t *testing.T) {
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h", Confirm: "0s"})
	ra := startAgent(t, e, Options{})
	testutil.WaitFor(t, 15*time.Second, "web started by the agent", func() bool {
		return latestStarted(e, "web", time.Time{}) != nil && testutil.Healthy(addr)
	})
	id := e.Pid("web")

	lockPath := e.sup.Paths.Lock("web")
	held, ok, err := state.TryLock(lockPath)
	if err != nil || !ok {
		t.Fatalf("take the service lock as a person's svc-ctl would: ok=%v err=%v", ok, err)
	}
	defer held.Unlock()
	if err := syscall.Kill(int(id.PID), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The watcher sees the exit, finds the lock held and waits for it.
	testutil.WaitFor(t, 10*time.Second, "a watcher waiting for the service lock", func() bool {
		return goroutinesIn("(*Agent).waitServiceLock") == 1
	})
	if err := ra.stop(t); err != nil {
		t.Fatalf("agent stop: %v", err)
	}
	// The agent has returned: nothing of it may still wait for the lock, to
	// act in a state dir that is no longer its own once the lock is free
	// (CI saw the test's state dir recreated under its RemoveAll).
	if n := goroutinesIn("(*Agent).waitServiceLock"); n != 0 {
		t.Fatalf("%d watchers still wait for the service lock after the agent returned", n)
	}
}

// goroutinesIn counts the goroutines whose stack is in fn (a function name
// as a stack trace prints it) right now.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, fn+"(") {
			count++
		}
	}
	return count
}
