//go:build unix

package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A system install refuses an svc-ctl binary that a non-administrator can
// replace (the file, or any directory above it that is not sticky), with
// the fix, and touches nothing; the same binary is fine for a per-user
// install. Failed before: install registered whatever binary it was given.
func TestInstallRefusesABinaryOthersCanWrite(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the binary must be root's, and another user's")
	}
	f := useFakeHost(t, systemd, false)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "30s")
	self, _ := os.Executable()
	b, _ := os.ReadFile(self)
	place := func(name string, dirMode os.FileMode, dirUID int, fileMode os.FileMode, fileUID int) string {
		d := filepath.Join(t.TempDir(), name)
		os.Mkdir(d, dirMode)
		os.Chmod(d, dirMode)
		os.Chown(d, dirUID, dirUID)
		exe := filepath.Join(d, "svc-ctl")
		os.WriteFile(exe, b, fileMode)
		os.Chmod(exe, fileMode)
		os.Chown(exe, fileUID, fileUID)
		return exe
	}
	for _, c := range []struct {
		name, exe, want string
	}{
		{"a user's file", place("a", 0o755, 0, 0o755, 65534), "is owned by uid 65534"},
		{"a world-writable file", place("b", 0o755, 0, 0o777, 0), "writable by its group or by everyone"},
		{"in a user's directory", place("c", 0o755, 65534, 0o755, 0), "is owned by"},
		{"in a world-writable directory", place("d", 0o777, 0, 0o755, 0), "writable by its group or by everyone"},
	} {
		_, err := Install(context.Background(), Request{ConfigFlag: cfg, Exe: c.exe})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "sudo install -o root -g 0 -m 0755") {
			t.Errorf("%s: %v; want a usage error naming %q and the fix", c.name, err, c.want)
		}
	}
	if len(f.mgr.calls) != 0 {
		t.Errorf("the service manager was called for a binary others can replace: %v", f.mgr.calls)
	}
	if _, err := Install(context.Background(), Request{ConfigFlag: cfg, Exe: place("e", 0o755, 0, 0o755, 0)}); err != nil {
		t.Errorf("a root-owned binary in a root-owned directory: %v", err)
	}
	sticky := place("f", os.ModeSticky|0o777, 0, 0o755, 0) // like /tmp: only root may rename root's entry
	if err := checkExeTrusted(sticky); err != nil {
		t.Errorf("a root-owned binary in a sticky directory: %v", err)
	}
}
