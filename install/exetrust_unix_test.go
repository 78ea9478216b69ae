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
	// The unit names the path as given: a link a user can retarget, to a
	// root-owned binary, is that user's binary at the next boot. Failed
	// before: only the file the link resolved to was checked.
	good := place("g", 0o755, 0, 0o755, 0)
	userDir := filepath.Join(t.TempDir(), "h")
	os.Mkdir(userDir, 0o755)
	os.Chown(userDir, 65534, 65534)
	if err := os.Symlink(good, filepath.Join(userDir, "svc-ctl")); err != nil {
		t.Fatal(err)
	}
	_, err := Install(context.Background(), Request{ConfigFlag: cfg, Exe: filepath.Join(userDir, "svc-ctl")})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the link "+filepath.Join(userDir, "svc-ctl")) || !strings.Contains(err.Error(), "is owned by") {
		t.Errorf("a root binary through a link in a user's directory: %v; want a usage error naming the link", err)
	}
	rootLink := filepath.Join(filepath.Dir(good), "svc-ctl-link")
	if err := os.Symlink(good, rootLink); err != nil {
		t.Fatal(err)
	}
	if err := checkExeTrusted(rootLink); err != nil {
		t.Errorf("a root binary through root's link in root's directory: %v", err)
	}
	sticky := place("f", os.ModeSticky|0o777, 0, 0o755, 0) // like /tmp: only root may rename root's entry
	if err := checkExeTrusted(sticky); err != nil {
		t.Errorf("a root-owned binary in a sticky directory: %v", err)
	}
}
