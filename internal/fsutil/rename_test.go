package fsutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A file a reader holds open is replaced once the reader lets go: on
// Windows the replace is refused while the handle is open, and Rename waits
// for it (briefly) instead of failing the write.
func TestReplaceFileWhileAReaderHoldsIt(t *testing.T) {
	dir, err := os.MkdirTemp("", "fsutil-rename-") // not t.TempDir: Wine cannot remove it (docs/windows.md)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "pid")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond) // a reader that holds the file a while
		r.Close()
		close(released)
	}()
	if err := ReplaceFile(path, []byte("new"), 0o600); err != nil {
		t.Fatalf("replace while a reader held the file: %v", err)
	}
	<-released
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("content %q, want new", b)
	}
}
