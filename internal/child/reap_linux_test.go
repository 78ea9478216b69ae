package child

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"svcctl/internal/testkit"
)

// Orphans re-parented to this subreaper are reaped and reported, while a
// hundred Cmds run beside the reaper: not one of their exit statuses is
// stolen (os/exec's Wait would fail with ECHILD).
func TestReaperReapsOrphansNeverACmd(t *testing.T) {
	testkit.ProcessWide(t, "the test process becomes a subreaper, for good")
	if err := Subreaper(); err != nil {
		t.Fatal(err)
	}
	if !IsSubreaper() {
		t.Fatal("IsSubreaper = false after Subreaper")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	reaped := map[int32]string{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Reap(ctx, func(o Orphan) {
			mu.Lock()
			reaped[o.PID] = o.Exit
			mu.Unlock()
		})
	}()
	var wg sync.WaitGroup
	orphans := make(chan int32, 20)
	for i := range 120 {
		wg.Go(func() {
			if i%6 == 0 {
				out, err := helper("orphan").Output()
				if err != nil {
					t.Errorf("orphan maker: %v", err)
					return
				}
				n, _ := strconv.Atoi(string(out[:len(out)-1]))
				orphans <- int32(n)
				return
			}
			err := helper("exit3").Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Errorf("Run = %v, want exit status 3 (a stolen status gives ECHILD)", err)
			}
		})
	}
	wg.Wait()
	close(orphans)
	deadline := time.Now().Add(10 * time.Second)
	for pid := range orphans {
		for {
			mu.Lock()
			how, ok := reaped[pid]
			mu.Unlock()
			if ok {
				if how != "exited with code 5" {
					t.Errorf("orphan %d reaped as %q, want exited with code 5", pid, how)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("orphan %d never reaped (reaped: %v)", pid, reaped)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	<-done
}

// The oracle of the test above can fail: a reaper that reaps any child
// (wait4(-1)) steals exit statuses from os/exec.
func TestNaiveReaperStealsStatuses(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var ws unix.WaitStatus
			unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		}
	}()
	stolen := 0
	for range 40 {
		c := exec.Command(os.Args[0]) // bare on purpose: the naive reaper is the point
		c.Env = append(os.Environ(), helperEnv+"=exit3")
		if err := c.Run(); err != nil && errors.Is(err, syscall.ECHILD) {
			stolen++
		}
	}
	if stolen == 0 {
		t.Fatal("a wait4(-1) reaper stole no exit status in 40 runs: the oracle above proves nothing")
	}
}

// A zombie in this process's own session and process group was started
// without a session of its own by this process (here: bare, by the test;
// in svc-ctl: by a library): Sweep leaves it to its Wait.
func TestSweepLeavesDirectChildren(t *testing.T) {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), helperEnv+"=exit3")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, c.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	for _, o := range Sweep() {
		if int(o.PID) == c.Process.Pid {
			t.Fatalf("Sweep reaped %d, a direct child in the test's own session", o.PID)
		}
	}
	if err := c.Wait(); err == nil || errors.Is(err, syscall.ECHILD) {
		t.Fatalf("Wait = %v, want exit status 3", err)
	}
}
