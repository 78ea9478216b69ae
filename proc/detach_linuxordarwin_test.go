//go:build linux || darwin

package proc

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The service must outlive the process that spawned it, in a session of its
// own; a later agent, knowing only the pid file, can watch and stop it.
func TestSpawnedServiceOutlivesSpawner(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	s := helperSpec(t, "spawn-detached", pidFile, filepath.Join(dir, "runtime.log"), sleepPath(t), "300")
	spawner := exec.Command(s.Argv[0], s.Argv[1:]...)
	spawner.Env = mergeEnv(spawner.Environ(), s.Env)
	if out, err := spawner.CombinedOutput(); err != nil {
		t.Fatalf("spawner: %v: %s", err, out)
	}
	id, err := ReadPidFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopQuietly(id) })

	if Alive(int32(spawner.Process.Pid)) {
		t.Fatal("the spawner is still running")
	}
	if ok, err := Match(id); !ok || err != nil {
		t.Fatalf("Match(grandchild) = %v, %v; want it alive after its spawner exited", ok, err)
	}
	if sid, err := unix.Getsid(int(id.PID)); err != nil || sid != int(id.PID) {
		t.Errorf("getsid = %d, %v; want its own session %d", sid, err, id.PID)
	}
	if pgid, err := unix.Getpgid(int(id.PID)); err != nil || pgid != int(id.PID) {
		t.Errorf("getpgid = %d, %v; want its own group %d", pgid, err, id.PID)
	}

	exited, err := WatchExit(id)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		t.Fatal("WatchExit fired while the process runs")
	default:
	}
	res, err := Stop(context.Background(), id, 20*time.Second)
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("Stop = %+v, %v; want ended by SIGTERM", res, err)
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("WatchExit did not fire after the process was stopped")
	}
}

func TestWatchExitUnrelatedProcess(t *testing.T) {
	cmd, id := startUnrelated(t)
	exited, err := WatchExit(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet on purpose: the exit alone must fire the watch.
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("WatchExit did not fire after the process was killed")
	}
	cmd.Wait()
	if _, err := WatchExit(id); !errors.Is(err, ErrGone) {
		t.Fatalf("WatchExit(exited process) = %v, want ErrGone", err)
	}
	if _, err := FactsOf(id); !errors.Is(err, ErrGone) {
		t.Fatalf("FactsOf(exited process) = %v, want ErrGone", err)
	}
}

// mergeEnv returns base followed by extra's variables in a stable order.
// exec.Cmd keeps the last value of a duplicated key (case-insensitively on
// Windows), so extra wins. Values never appear in errors or logs.
func mergeEnv(base []string, extra map[string]string) []string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(base)+len(keys))
	env = append(env, base...)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}
