package fsutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFileAtomicCreatesParentsAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "state.json")

	if err := WriteFileAtomic(path, []byte("old"), 0o600); err != nil {
		t.Fatalf("first write: %v", err)
	}
	if err := WriteFileAtomic(path, []byte("new"), 0o600); err != nil {
		t.Fatalf("second write: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "new" {
		t.Fatalf("content = %q, want %q", got, "new")
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file (a temporary file was left behind?)", len(entries))
	}
	assertMode(t, path, 0o600)
	assertMode(t, filepath.Join(dir, "a"), 0o700|os.ModeDir)
	assertMode(t, filepath.Join(dir, "a", "b"), 0o700|os.ModeDir)
}

func TestWriteFileAtomicHonoursPerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "public.txt")
	if err := WriteFileAtomic(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o644)
}

func TestWriteFileAtomicFailsWhenParentIsAFile(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(filepath.Join(blocker, "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("write under a regular file succeeded, want an error")
	}
}

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Fatalf("SyncDir on a real directory: %v", err)
	}
	if runtime.GOOS == "windows" {
		return // a no-op there, by design
	}
	if err := SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("SyncDir on a missing directory succeeded, want an error")
	}
}

func TestSyncFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SyncFile(path); err != nil {
		t.Fatalf("SyncFile: %v", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "line\n" {
		t.Fatalf("SyncFile changed the content to %q", got)
	}
	if err := SyncFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("SyncFile on a missing file succeeded, want an error")
	}
}

func TestEnsureDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x", "y")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); err != nil {
		t.Fatalf("second EnsureDir on an existing directory: %v", err)
	}
	assertMode(t, dir, 0o700|os.ModeDir)
}

// assertMode checks permission bits where the OS has them (not on Windows).
func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Fatalf("%s mode = %v, want %v", path, got, want)
	}
}

func TestReplaceFileReplacesWithoutLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "state.json")
	for _, content := range []string{"one", "two"} {
		if err := ReplaceFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Fatalf("content %q, want %q", b, content)
		}
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("leftover temporary files: %v", ents)
	}
}
