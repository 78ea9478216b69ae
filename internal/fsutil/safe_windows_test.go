package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestEnsureStateDirProtects: a state dir a privileged process creates gets
// a protected access list that CheckTree accepts, and what is created in it
// inherits it.
func TestEnsureStateDirProtects(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := EnsureStateDir(dir, true); err != nil {
		t.Fatal(err)
	}
	f, err := OpenAppend(filepath.Join(dir, "agent.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := CheckTree(dir, 0); err != nil {
		t.Fatalf("CheckTree of a protected state dir: %v", err)
	}
}

// TestOpenFileRefusesReparsePoint: a symlink planted as a state file is
// refused, its target untouched.
func TestOpenFileRefusesReparsePoint(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "runtime.log")
	if err := os.Symlink(victim, link); err != nil {
		t.Skipf("cannot create a symlink here: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("this Windows does not report the symlink it made as one (Wine 8 does not): %v", err)
	}
	if f, err := OpenAppend(link); !errors.Is(err, ErrSymlink) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("OpenAppend(link) = %v, want ErrSymlink", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the target changed: %q", b)
	}
}
