//go:build unix

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/fsutil"
)

// TestAppendRefusesPlantedSymlink: a snapshots.jsonl link planted in a
// user-writable state dir once made root append a snapshot
// to a root-only file. The append is refused and the target is untouched;
// the log tail is not read through a link either.
func TestAppendRefusesPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "shadow")
	if err := os.WriteFile(victim, []byte("root:x:0:0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "snapshots.jsonl")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, sample(1)); !errors.Is(err, fsutil.ErrSymlink) {
		t.Fatalf("Append through a link = %v, want ErrSymlink", err)
	}
	if _, _, err := Read(path, 0); !errors.Is(err, fsutil.ErrSymlink) {
		t.Fatalf("Read through a link = %v, want ErrSymlink", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root:x:0:0\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
	logLink := filepath.Join(dir, "runtime.log")
	if err := os.Symlink(victim, logLink); err != nil {
		t.Fatal(err)
	}
	snaps := filepath.Join(dir, "real", "snapshots.jsonl")
	if err := Prepare(sample(2), snaps, logAt(t, logLink), func(s string) string { return s }); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	got, _, err := Read(snaps, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if len(got[0].LogTail) != 0 || !strings.Contains(got[0].LogTailError, "symbolic link") {
		t.Fatalf("the tail of a linked file: %q (error %q); want none, and the link named", got[0].LogTail, got[0].LogTailError)
	}
}
