//go:build linux || darwin

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"svcctl/internal/testutil"

	"syscall"
)

// startUnrelated starts a plain sleep the way something other than svc-ctl
// would: an ordinary child, in the test's own process group.
func startUnrelated(t *testing.T) (*exec.Cmd, Identity) {
	t.Helper()
	cmd := exec.Command(sleepPath(t), "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // by PID; still unreaped, so still ours
	id, err := IdentityOf(int32(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, id
}

func TestStopRefusesReusedPID(t *testing.T) {
	_, real := startUnrelated(t)
	reused := real
	reused.Start-- // another process at the same PID
	res, err := Stop(context.Background(), reused, time.Second)
	if !errors.Is(err, ErrNotOurs) {
		t.Fatalf("Stop = %+v, %v; want ErrNotOurs", res, err)
	}
	if ok, err := Match(real); !ok || err != nil {
		t.Fatalf("the unrelated process was harmed: Match = %v, %v", ok, err)
	}
	if _, err := FactsOf(reused); !errors.Is(err, ErrNotOurs) {
		t.Errorf("FactsOf = %v, want ErrNotOurs", err)
	}
	if _, err := WatchExit(reused); !errors.Is(err, ErrNotOurs) {
		t.Errorf("WatchExit = %v, want ErrNotOurs", err)
	}
	if err := Kill(reused); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Kill = %v, want ErrNotOurs", err)
	}
}

// A process that exec'd another program (a shim, a wrapper's exec) is the
// same instance: the recorded exe is for people.
func TestStopAfterExec(t *testing.T) {
	_, real := startUnrelated(t)
	execd := real
	execd.Exe = "/usr/bin/env"
	res, err := Stop(context.Background(), execd, 10*time.Second)
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("Stop = %s, %v; want ended by SIGTERM", res, err)
	}
}

func TestStopGraceful(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	res, err := Stop(context.Background(), c.Identity, 20*time.Second)
	if err != nil || res.Signal != "SIGTERM" || res.AlreadyGone || res.KilledStragglers || len(res.Members) != 1 {
		t.Fatalf("Stop = %+v, %v; want ended by SIGTERM", res, err)
	}
	<-c.Done
	if ok, _ := Match(c.Identity); ok {
		t.Fatal("still running after Stop")
	}
	res, err = Stop(context.Background(), c.Identity, time.Second)
	if err != nil || !res.AlreadyGone || res.Signal != "" {
		t.Fatalf("second Stop = %+v, %v; want AlreadyGone", res, err)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	s := helperSpec(t, "ignore-term")
	c := spawnT(t, s)
	waitLog(t, s.LogPath, "ignoring SIGTERM")
	res, err := Stop(context.Background(), c.Identity, 300*time.Millisecond)
	if err != nil || res.Signal != "SIGKILL" {
		t.Fatalf("Stop = %+v, %v; want ended by SIGKILL", res, err)
	}
	<-c.Done
	if ws := waitStatus(t, c); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v, want killed by SIGKILL", ws)
	}
}

func TestStopKillsProcessGroup(t *testing.T) {
	s := helperSpec(t, "group", "exec", sleepPath(t), "300")
	c := spawnT(t, s)
	child := childPID(t, waitLog(t, s.LogPath, "child="))
	if !Alive(child) {
		t.Fatalf("group member %d not running before Stop", child)
	}
	res, err := Stop(context.Background(), c.Identity, 20*time.Second)
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("Stop = %+v, %v; want ended by SIGTERM", res, err)
	}
	testutil.WaitFor(t, 10*time.Second, "the leader's child to die with the group", func() bool { return !Alive(child) })
}

// A group member that ignores SIGTERM and outlives the leader is killed at
// the deadline: left alone it would keep holding the service's port.
func TestStopKillsStragglers(t *testing.T) {
	s := helperSpec(t, "group", "ignore-term")
	c := spawnT(t, s)
	child := childPID(t, waitLog(t, s.LogPath, "child="))
	waitLog(t, s.LogPath, "ignoring SIGTERM")
	res, err := Stop(context.Background(), c.Identity, 500*time.Millisecond)
	if err != nil || res.Signal != "SIGTERM" || !res.KilledStragglers {
		t.Fatalf("Stop = %+v, %v; want leader ended by SIGTERM and stragglers killed", res, err)
	}
	testutil.WaitFor(t, 10*time.Second, "the straggler to die", func() bool { return !Alive(child) })
}

func TestStopNeverSignalsOwnGroup(t *testing.T) {
	cmd, id := startUnrelated(t) // shares the test's process group
	res, err := Stop(context.Background(), id, 20*time.Second)
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("Stop = %+v, %v; want ended by SIGTERM", res, err)
	}
	// Reaching this line means the test process survived the SIGTERM.
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("sleep ended with %v, want killed by SIGTERM", err)
	}
}

func TestStopRefusesInvalidIdentity(t *testing.T) {
	self, err := IdentityOf(int32(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []Identity{{PID: 0}, {PID: -1}, {PID: 1, CreateTime: 1, Exe: "/sbin/init"}, self} {
		if _, err := Stop(context.Background(), id, time.Second); !errors.Is(err, ErrInvalidIdentity) {
			t.Errorf("Stop(%+v) = %v, want ErrInvalidIdentity", id, err)
		}
	}
}

func TestStopHonoursContext(t *testing.T) {
	s := helperSpec(t, "ignore-term")
	c := spawnT(t, s)
	waitLog(t, s.LogPath, "ignoring SIGTERM")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Stop(ctx, c.Identity, time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Stop with a cancelled context = %v, want context.Canceled", err)
	}
	if ok, _ := Match(c.Identity); !ok {
		t.Fatal("the process should still run: only SIGTERM, which it ignores, was sent")
	}
}

func waitStatus(t *testing.T, c *Child) syscall.WaitStatus {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(c.ExitErr(), &ee) {
		t.Fatalf("ExitErr = %v, want an *exec.ExitError", c.ExitErr())
	}
	return ee.Sys().(syscall.WaitStatus)
}

// An exited but unreaped process still answers kill(pid, 0); it is not alive.
func TestZombieIsNotAlive(t *testing.T) {
	cmd, id := startUnrelated(t)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped: the sleep stays a zombie until the cleanup's Wait.
	testutil.WaitFor(t, 10*time.Second, "the killed process to become a zombie", func() bool { return !Alive(id.PID) })
	if err := syscall.Kill(int(id.PID), 0); err != nil {
		t.Fatalf("kill(pid, 0) = %v: expected the zombie to still exist", err)
	}
	if ok, err := Match(id); ok || err != nil {
		t.Fatalf("Match(zombie) = %v, %v; want false, nil", ok, err)
	}
	res, err := Stop(context.Background(), id, time.Second)
	if err != nil || !res.AlreadyGone {
		t.Fatalf("Stop(zombie) = %+v, %v; want AlreadyGone", res, err)
	}
}
