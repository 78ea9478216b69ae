//go:build unix

package agent

import (
	"os"
	"path/filepath"
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
	id := e.pid("web")

	lockPath := e.sup.Paths.Lock("web")
	held, ok, err := state.TryLock(lockPath)
	if err != nil || !ok {
		t.Fatalf("take the service lock as a person's svc-ctl would: ok=%v err=%v", ok, err)
	}
	unlocked := false
	defer func() {
		if !unlocked {
			held.Unlock()
		}
	}()
	if err := syscall.Kill(int(id.PID), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The watcher sees the exit, finds the lock held and waits for it.
	testutil.WaitFor(t, 10*time.Second, "the agent to log the exit", func() bool {
		return strings.Contains(ra.log.String(), "service.exited")
	})
	if err := ra.stop(t); err != nil {
		t.Fatalf("agent stop: %v", err)
	}
	// The agent has returned: its state dir is the test's now.
	dir := filepath.Dir(lockPath)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	held.Unlock()
	unlocked = true
	time.Sleep(500 * time.Millisecond) // WaitLock polls every 100 ms at most
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s exists again after the agent returned (err %v): a watcher outlived it", dir, err)
	}
}
