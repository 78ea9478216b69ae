//go:build unix

package runtrace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The state directory and the database, with its -wal and -shm files, are
// private to the agent's user whatever the umask.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "state", "svc-ctl.db")
	s := openT(t, path)
	if _, err := s.Begin(ctxb, "job:a", TriggerManual, time.Time{}, t0); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{
		filepath.Dir(path): 0o700 | os.ModeDir, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600,
	} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode(), want)
		}
	}
}
