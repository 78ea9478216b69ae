package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestPrevPath(t *testing.T) {
	tests := map[string]string{
		"runtime.log":                 "runtime.prev.log",
		filepath.Join("a.d", "x.log"): filepath.Join("a.d", "x.prev.log"),
		"foo":                         "foo.prev",
		filepath.Join("a.d", "foo"):   filepath.Join("a.d", "foo.prev"),
		".log":                        ".log.prev",
		"out.tar.gz":                  "out.tar.prev.gz",
	}
	for in, want := range tests {
		if got := PrevPath(in); got != want {
			t.Errorf("PrevPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRotateLogMovesContentAndReplacesOlderPrev(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	prev := filepath.Join(dir, "runtime.prev.log")
	writeFile(t, prev, "older run\n")
	writeFile(t, log, "the failing run\n")

	if err := RotateLog(logAt(t, log)); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, prev); got != "the failing run\n" {
		t.Fatalf("prev = %q, want the rotated content", got)
	}
	if _, err := os.Stat(log); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("runtime.log still exists after rotation (stat: %v)", err)
	}
	assertPerm(t, prev, 0o600)
}

func TestRotateLogMissingIsFine(t *testing.T) {
	dir := t.TempDir()
	prev := filepath.Join(dir, "runtime.prev.log")
	writeFile(t, prev, "kept\n")
	if err := RotateLog(logAt(t, filepath.Join(dir, "runtime.log"))); err != nil {
		t.Fatalf("RotateLog(missing) = %v, want nil", err)
	}
	if got := readString(t, prev); got != "kept\n" {
		t.Fatalf("a missing log replaced the prev: %q", got)
	}
}

func TestRotateLogLeavesNonRegularFilesAlone(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	if err := os.Mkdir(log, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := RotateLog(logAt(t, log)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(log); err != nil || !fi.IsDir() {
		t.Fatalf("a non-regular log was moved (stat: %v)", err)
	}
}
