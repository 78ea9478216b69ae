package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrepareSnapshotsThenRotates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "services", "proxy")
	log := filepath.Join(dir, "runtime.log")
	snaps := filepath.Join(dir, "snapshots.jsonl")
	var old strings.Builder
	for i := range 80 {
		fmt.Fprintf(&old, "old line %d\n", i)
	}
	old.WriteString("last words without newline")
	writeFile(t, log, old.String())

	e := sample(0)
	e.Phase, e.LogTail = "", []string{"ignored: Prepare fills the tail"}
	if err := Prepare(e, snaps, logAt(t, log), nil); err != nil {
		t.Fatal(err)
	}

	if got := readString(t, PrevPath(log)); got != old.String() {
		t.Fatal("runtime.prev.log does not hold the old log content")
	}
	if _, err := os.Stat(log); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("runtime.log was not moved aside (stat: %v)", err)
	}
	got, corrupt, err := Read(snaps, 1)
	if err != nil || corrupt != 0 || len(got) != 1 {
		t.Fatalf("Read = %d entries, %d corrupt, %v", len(got), corrupt, err)
	}
	tail := got[0].LogTail
	if len(tail) != LogTailLines || tail[0] != "old line 31" || tail[LogTailLines-1] != "last words without newline" {
		t.Fatalf("snapshot tail = %d lines, %q ... %q; want the log's last %d", len(tail), tail[0], tail[len(tail)-1], LogTailLines)
	}
	if got[0].Phase != PhasePreRestart || got[0].LogTailError != "" {
		t.Fatalf("phase %q, log_tail_error %q", got[0].Phase, got[0].LogTailError)
	}
	assertPerm(t, snaps, 0o600)
	assertPerm(t, PrevPath(log), 0o600)
}

func TestPrepareWithoutALog(t *testing.T) {
	dir := t.TempDir()
	snaps := filepath.Join(dir, "snapshots.jsonl")
	if err := Prepare(sample(0), snaps, logAt(t, filepath.Join(dir, "runtime.log")), nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := Read(snaps, 1)
	if err != nil || len(got) != 1 || len(got[0].LogTail) != 0 {
		t.Fatalf("Read = %+v, %v; want one entry with an empty tail", got, err)
	}
}

func TestPrepareDoesNotRotateWhenAppendFails(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	writeFile(t, log, "evidence\n")
	snaps := filepath.Join(dir, "snapshots.jsonl")
	if err := os.Mkdir(snaps, 0o700); err != nil { // appending to a directory fails
		t.Fatal(err)
	}
	err := Prepare(sample(0), snaps, logAt(t, log), nil)
	if err == nil {
		t.Fatal("Prepare succeeded though the snapshot could not be written")
	}
	if !strings.Contains(err.Error(), snaps) {
		t.Fatalf("error %q does not name the snapshot file", err)
	}
	if got := readString(t, log); got != "evidence\n" {
		t.Fatalf("runtime.log = %q, want it untouched", got)
	}
	if _, err := os.Stat(PrevPath(log)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the log was rotated although the snapshot failed (stat: %v)", err)
	}
}

func TestPrepareRecordsAnUnreadableLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	if err := os.Mkdir(log, 0o700); err != nil { // exists, but cannot be read as a log
		t.Fatal(err)
	}
	snaps := filepath.Join(dir, "snapshots.jsonl")
	if err := Prepare(sample(0), snaps, logAt(t, log), nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := Read(snaps, 1)
	if err != nil || len(got) != 1 || got[0].LogTailError == "" {
		t.Fatalf("Read = %+v, %v; want one entry with log_tail_error set", got, err)
	}
}

func TestPrepareScrubsLogTail(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	snaps := filepath.Join(dir, "snapshots.jsonl")
	if err := os.WriteFile(log, []byte("connecting with token hunter2-secret\nok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	scrub := func(s string) string { return strings.ReplaceAll(s, "hunter2-secret", "[redacted]") }
	if err := Prepare(sample(0), snaps, logAt(t, log), scrub); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(snaps)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hunter2-secret") || !strings.Contains(string(b), "[redacted]") {
		t.Fatalf("log tail not scrubbed: %s", b)
	}
}
