//go:build unix

package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/fsutil"
)

// The log's directory is replaced by a link to a directory holding a file
// of the log's name (a root-only file in a root-only directory, in the
// review): the cut, the trim and the rotation act in the directory that
// was pinned, and the file behind the link is neither truncated, copied
// nor renamed. Failed before: CapLogWith truncated the file behind the link
// to 0 bytes and copied its tail to <log>.1, RotateLog renamed it.
func TestPinnedLogIgnoresADirectorySwap(t *testing.T) {
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	secretDir := filepath.Join(root, "secret")
	os.Mkdir(secretDir, 0o700)
	secret := filepath.Join(secretDir, "runtime.log")
	writeFile(t, secret, string(numbered(0, 3000)))
	writeFile(t, filepath.Join(secretDir, "runtime.prev.log"), string(numbered(0, 3000)))
	l := logAt(t, filepath.Join(logs, "runtime.log"))
	writeFile(t, filepath.Join(logs, "runtime.log"), string(numbered(0, 3000)))
	if err := os.Rename(logs, filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secretDir, logs); err != nil {
		t.Fatal(err)
	}
	if c, err := CapLog(l, 4096); err != nil || c == nil {
		t.Fatalf("CapLog = %v, %v", c, err)
	}
	if _, err := TrimFront(l.Prev(), 4096); err != nil {
		t.Fatal(err)
	}
	if err := RotateLog(l); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"runtime.log", "runtime.prev.log"} {
		if got := readString(t, filepath.Join(secretDir, n)); got != string(numbered(0, 3000)) {
			t.Fatalf("%s behind the link changed: %d bytes", n, len(got))
		}
	}
	if ents, _ := os.ReadDir(secretDir); len(ents) != 2 {
		t.Fatalf("files appeared behind the link: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(root, "moved", "runtime.prev.log")); err != nil {
		t.Fatalf("the rotation did not happen in the pinned directory: %v", err)
	}
}

// A hard link to another file at the log's name (where protected_hardlinks
// is off) is neither cut, rotated, trimmed nor read: the file it shares is
// left as it was, and each refusal says why.
func TestPinnedLogRefusesAHardLink(t *testing.T) {
	root := t.TempDir()
	other := filepath.Join(root, "other")
	writeFile(t, other, string(numbered(0, 3000)))
	l := logAt(t, filepath.Join(root, "logs", "runtime.log"))
	if err := os.Link(other, l.Path()); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, l.Prev().Path()); err != nil {
		t.Fatal(err)
	}
	if _, err := CapLog(l, 4096); !errors.Is(err, fsutil.ErrLinked) {
		t.Errorf("CapLog of a hard link = %v", err)
	}
	if _, err := TrimFront(l.Prev(), 4096); !errors.Is(err, fsutil.ErrLinked) {
		t.Errorf("TrimFront of a hard link = %v", err)
	}
	if _, err := TailSince(l, time.Time{}, 5, 1<<20); !errors.Is(err, fsutil.ErrLinked) {
		t.Errorf("TailSince of a hard link = %v", err)
	}
	snaps := filepath.Join(root, "snapshots.jsonl")
	if err := Prepare(sample(0), snaps, l, nil); !errors.Is(err, fsutil.ErrLinked) {
		t.Errorf("Prepare with a hard-linked log = %v, want the rotation refused", err)
	}
	if got := readString(t, other); got != string(numbered(0, 3000)) {
		t.Fatalf("the linked file changed: %d bytes", len(got))
	}
	if _, err := os.Lstat(l.Path()); err != nil {
		t.Fatalf("the hard link was moved: %v", err)
	}
	if es, _, _ := Read(snaps, 1); len(es) != 1 || es[0].LogTailError == "" || len(es[0].LogTail) != 0 {
		t.Fatalf("the snapshot read a hard link's tail: %+v", es)
	}
}

// A FIFO at the log's name hangs nothing.
func TestPinnedLogFIFODoesNotHang(t *testing.T) {
	l := logAt(t, filepath.Join(t.TempDir(), "runtime.log"))
	if err := syscall.Mkfifo(l.Path(), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		CapLog(l, 1)
		RotateLog(l)
		TailSince(l, time.Now(), 5, 1<<10)
		Prepare(sample(0), filepath.Join(l.Dir.Path(), "snapshots.jsonl"), l, nil)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a bound on a hang, not a timing assertion
		t.Fatal("a FIFO at the log's name hung the cap, the rotation or the tail")
	}
	if fi, err := os.Lstat(l.Path()); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was moved: %v", err)
	}
}

// A file of another user at the log's name (neither the agent's nor the
// service's) is not acted on.
func TestPinnedLogRefusesAStrangersFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	l := logAt(t, filepath.Join(t.TempDir(), "runtime.log"))
	l.Owners = fsutil.Owners{0, 4242}
	writeFile(t, l.Path(), string(numbered(0, 3000)))
	if err := os.Chown(l.Path(), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := CapLog(l, 4096); !errors.Is(err, fsutil.ErrUntrusted) {
		t.Errorf("CapLog of a stranger's file = %v", err)
	}
	if err := RotateLog(l); !errors.Is(err, fsutil.ErrUntrusted) {
		t.Errorf("RotateLog of a stranger's file = %v", err)
	}
	if err := os.Chown(l.Path(), 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if err := RotateLog(l); err != nil {
		t.Errorf("RotateLog of the service user's file = %v", err)
	}
}
