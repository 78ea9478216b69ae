//go:build unix

package runtrace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"svcctl/internal/fsutil"
)

// TestOpenRefusesPlantedLinks: SQLite follows links, so a database or
// journal link planted in the state dir is refused before SQLite sees it.
func TestOpenRefusesPlantedLinks(t *testing.T) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		t.Run("svc-ctl.db"+suffix, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, "svc-ctl.db")
			if suffix != "" {
				s, err := Open(db, Options{})
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				os.Remove(db + suffix)
			}
			if err := os.Symlink(victim, db+suffix); err != nil {
				t.Fatal(err)
			}
			for _, ro := range []bool{false, true} {
				s, err := Open(db, Options{ReadOnly: ro})
				if err == nil {
					s.Close()
					t.Fatalf("Open(ReadOnly=%v) accepted a linked %s", ro, db+suffix)
				}
				if !errors.Is(err, fsutil.ErrSymlink) {
					t.Fatalf("Open(ReadOnly=%v) = %v, want ErrSymlink", ro, err)
				}
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Fatalf("the link's target changed: %q", b)
			}
		})
	}
}
