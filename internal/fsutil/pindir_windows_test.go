package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"svcctl/internal/testkit"
)

// TestPinnedDirWindows: a pinned directory cannot be renamed away while
// svc-ctl holds it, and its files are opened as on Unix: no hard link.
func TestPinnedDirWindows(t *testing.T) {
	root, err := os.MkdirTemp("", "fsutil-pin-") // not t.TempDir: Wine cannot remove it (docs/windows.md)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	logs := filepath.Join(root, "logs")
	d, err := EnsurePinnedDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(logs, filepath.Join(root, "moved")); err == nil {
		t.Error("a pinned directory was renamed away")
	}
	f, err := d.OpenFile("runtime.log", os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Link(filepath.Join(logs, "runtime.log"), filepath.Join(logs, "hard")); err == nil {
		if _, err := d.Open("hard", nil); !errors.Is(err, ErrLinked) {
			t.Errorf("a hard link opened: %v", err)
		}
	}
	if err := d.Rename("runtime.log", "runtime.prev.log"); err != nil {
		t.Fatal(err)
	}
	again, err := OpenDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Same(again) {
		t.Error("Same: one directory, two pins")
	}
	again.Close()
	d.Close()
	if _, err := d.Lstat("runtime.prev.log"); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a closed Dir answered: %v", err)
	}
}

// TestPinRefusesAReparsePoint: a directory whose handle says it is a
// reparse point (a junction, a symlink) is refused, never pinned. Wine
// reports none for the links it makes, so the handle's answer is the seam.
func TestPinRefusesAReparsePoint(t *testing.T) {
	root, err := os.MkdirTemp("", "fsutil-pin-") // not t.TempDir: Wine cannot remove it (docs/windows.md)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	testkit.Replace(t, &reparseOf, func(windows.Handle) (bool, error) { return true, nil })
	if d, err := OpenDir(root); !errors.Is(err, ErrSymlink) {
		if d != nil {
			d.Close()
		}
		t.Fatalf("OpenDir of a reparse point = %v, want ErrSymlink", err)
	}
}
