//go:build unix

package proc

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// A spawn whose caller dies before it writes the instance's pid file (the
// agent SIGKILLed right after the fork) leaves a running instance: the
// pending record Spawn wrote before the fork names it, through the marker
// its processes carry, and ReadInstance returns it over the older record.
// Before, the instance ran unnamed: the next agent took it for a stranger
// on its port, and `svc-ctl stop` could not stop it.
func TestPendingRecordNamesAnInstanceWithoutItsPidFile(t *testing.T) {
	pidPath := filepath.Join(t.TempDir(), "services", "web", "pid")
	older := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	if err := WriteInstance(pidPath, older.Instance); err != nil {
		t.Fatal(err)
	}
	// The caller "dies" here: Spawn returns, nothing writes the pid file.
	newer := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}, Record: pidPath})
	got, err := ReadInstance(pidPath)
	if err != nil || got.PID != newer.PID || got.Marker != newer.Marker {
		t.Fatalf("ReadInstance = pid %d marker %q (%v); want the unrecorded newer instance, pid %d", got.PID, got.Marker, err, newer.PID)
	}
	if ok, err := Match(got.Identity); !ok || err != nil {
		t.Fatalf("the resolved identity does not match its process: %v, %v", ok, err)
	}
	// Its own record written, the pending one is gone and the record is read.
	if err := WriteInstance(pidPath, newer.Instance); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(PendingPath(pidPath)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the pending record outlived the instance's record: %v", err)
	}
	if got, err := ReadInstance(pidPath); err != nil || got.PID != newer.PID {
		t.Fatalf("ReadInstance after the write = %d (%v); want %d", got.PID, err, newer.PID)
	}
}

// A launcher that forks its server and exits before the pid file is
// written: the server, carrying the marker, is the instance's leader.
func TestPendingRecordFindsTheServerOfALauncherThatExited(t *testing.T) {
	pidPath := filepath.Join(t.TempDir(), "pid")
	out := filepath.Join(t.TempDir(), "out.log")
	c := spawnT(t, SpawnSpec{LogPath: out, Record: pidPath,
		Argv: []string{"/bin/sh", "-c", `"$0" 300 & echo "child=$!"; exit 0`, sleepPath(t)}})
	server := childPID(t, waitLog(t, out, "child="))
	t.Cleanup(func() {
		if id, err := IdentityOf(server); err == nil {
			Kill(id)
		}
	})
	testutil.WaitFor(t, 10*time.Second, "the launcher's exit", func() bool { return !Alive(c.PID) })
	got, err := ReadInstance(pidPath)
	if err != nil || got.PID != server {
		t.Fatalf("ReadInstance = pid %d (%v); want the server, pid %d", got.PID, err, server)
	}
}

// A pending record no process carries the marker of (the spawn failed, or
// the instance ended) names nothing: the pid file's record stands, and
// without one the answer is "no record".
func TestPendingRecordOfNoProcessNamesNothing(t *testing.T) {
	dir := t.TempDir()
	pidPath := filepath.Join(dir, "pid")
	if err := writePending(pidPath, Pending{Marker: "0123456789abcdef01234567", Since: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInstance(pidPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadInstance with only a dead pending record: %v; want not exist", err)
	}
	older := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	if err := writeRecord(pidPath, mustJSON(t, older.Instance)); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadInstance(pidPath); err != nil || got.PID != older.PID {
		t.Fatalf("ReadInstance = %d (%v); want the pid file's %d", got.PID, err, older.PID)
	}
	// A spawn that fails leaves no pending record behind.
	if _, err := Spawn(SpawnSpec{Argv: []string{filepath.Join(dir, "no-such-program")}, Record: filepath.Join(dir, "other")}); err == nil {
		t.Fatal("a missing program started")
	}
	if _, err := os.Stat(PendingPath(filepath.Join(dir, "other"))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed spawn left its pending record: %v", err)
	}
}

func mustJSON(t *testing.T, inst Instance) []byte {
	t.Helper()
	b, err := json.Marshal(inst)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
