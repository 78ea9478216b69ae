//go:build linux || darwin

package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSpawnLogEnvDirExitCode(t *testing.T) {
	t.Setenv("PROC_TEST_VALUE", "from-parent") // the service env must win over the agent's
	s := helperSpec(t, "print")
	s.Env["PROC_TEST_VALUE"] = "from-service"
	s.Dir = t.TempDir()
	if err := os.WriteFile(s.LogPath, []byte("earlier line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := spawnT(t, s)
	select {
	case <-c.Done:
	case <-time.After(20 * time.Second):
		t.Fatal("helper did not exit")
	}
	if c.ExitCode() != 7 {
		t.Errorf("ExitCode = %d, want 7", c.ExitCode())
	}
	var ee *exec.ExitError
	if !errors.As(c.ExitErr(), &ee) {
		t.Errorf("ExitErr = %v, want an *exec.ExitError", c.ExitErr())
	}
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	wantDir, _ := filepath.EvalSymlinks(s.Dir)
	for _, want := range []string{"earlier line\n", "value=from-service\n", "cwd=" + wantDir + "\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if !strings.HasPrefix(log, "earlier line\n") {
		t.Errorf("log was truncated, not appended:\n%s", log)
	}
}

func TestSpawnCreatesLogPrivately(t *testing.T) {
	s := helperSpec(t, "print")
	s.LogPath = filepath.Join(t.TempDir(), "services", "x", "runtime.log")
	c := spawnT(t, s)
	<-c.Done
	assertMode(t, s.LogPath, 0o600)
	assertMode(t, filepath.Dir(s.LogPath), 0o700)
}

func TestSpawnIdentityAndMatch(t *testing.T) {
	before := time.Now()
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}, LogPath: filepath.Join(t.TempDir(), "log")})
	after := time.Now()
	wantExe, _ := filepath.EvalSymlinks(sleepPath(t))
	if c.PID <= 0 || c.Exe != wantExe {
		t.Errorf("identity %+v: want a pid and exe %s", c.Identity, wantExe)
	}
	// gopsutil's create time has whole-second boot time under it.
	created := time.UnixMilli(c.CreateTime)
	if created.Before(before.Add(-2*time.Second)) || created.After(after.Add(2*time.Second)) {
		t.Errorf("create time %s not within spawn window %s..%s", created, before, after)
	}
	if c.StartedAt.Location() != time.UTC || c.StartedAt.Before(before.Add(-time.Millisecond)) {
		t.Errorf("StartedAt %s: want UTC, at spawn", c.StartedAt)
	}
	if ok, err := Match(c.Identity); !ok || err != nil {
		t.Fatalf("Match(fresh child) = %v, %v; want true", ok, err)
	}
	if c.ExitCode() != -1 || c.Exit() != "running" {
		t.Errorf("ExitCode while running = %d (%q), want -1", c.ExitCode(), c.Exit())
	}
	if err := syscall.Kill(int(c.PID), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.Done
	if got := c.Exit(); got != "killed by SIGKILL" || c.ExitCode() != -1 {
		t.Errorf("Exit() = %q (code %d), want killed by SIGKILL", got, c.ExitCode())
	}
	if ok, err := Match(c.Identity); ok || err != nil {
		t.Fatalf("Match(killed child) = %v, %v; want false, nil", ok, err)
	}
	if Alive(c.PID) {
		t.Error("Alive(killed and reaped child) = true")
	}
}

func TestSpawnMissingBinary(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "runtime.log")
	for _, argv0 := range []string{filepath.Join(dir, "no", "such-service"), "svcctl-no-such-program"} {
		_, err := Spawn(SpawnSpec{Argv: []string{argv0, "--flag"}, LogPath: logPath})
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Spawn(%s): err = %v, want ErrNotFound", argv0, err)
		}
		if err != nil && !strings.Contains(err.Error(), argv0) {
			t.Errorf("error %q does not name %s", err, argv0)
		}
	}
	if _, err := os.Stat(logPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed spawn created the log file (stat err %v)", err)
	}
}

func TestSpawnBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := Spawn(SpawnSpec{}); err == nil {
		t.Error("Spawn with no argv succeeded")
	}
	missing := filepath.Join(dir, "gone")
	_, err := Spawn(SpawnSpec{Argv: []string{sleepPath(t), "1"}, Dir: missing})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: err = %v, want one naming %s", err, missing)
	}
	notExec := filepath.Join(dir, "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Spawn(SpawnSpec{Argv: []string{notExec}})
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), notExec) {
		t.Errorf("non-executable: err = %v, want a permission error naming %s", err, notExec)
	}
}

// A relative argv[0] with a slash is resolved against Dir, as exec does.
func TestSpawnRelativeToDir(t *testing.T) {
	s := helperSpec(t, "print")
	s.Dir = t.TempDir()
	if err := os.Symlink(s.Argv[0], filepath.Join(s.Dir, "svc")); err != nil {
		t.Fatal(err)
	}
	s.Argv[0] = "./svc"
	c := spawnT(t, s)
	<-c.Done
	if c.ExitCode() != 7 {
		t.Fatalf("ExitCode = %d, want 7 (the helper ran)", c.ExitCode())
	}
}

// A program that exits at once is spawned (and reported through Done with its
// exit code), never a spawn error: whether it failed to start is the caller's
// judgement, with its output at hand.
func TestSpawnOfProgramThatExitsAtOnce(t *testing.T) {
	for i := 0; i < 20; i++ {
		c, err := Spawn(SpawnSpec{Argv: []string{"/bin/sh", "-c", "exit 3"}, LogPath: filepath.Join(t.TempDir(), "log")})
		if err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
		select {
		case <-c.Done:
		case <-time.After(5 * time.Second):
			t.Fatal("Done never closed")
		}
		if c.ExitCode() != 3 || c.Exit() != "exited with code 3" {
			t.Fatalf("exit code %d (%q), want 3", c.ExitCode(), c.Exit())
		}
	}
}
