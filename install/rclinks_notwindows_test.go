//go:build !windows

package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"svcctl/internal/testkit"
)

// SysV rc links are symlinks in /etc/rc?.d: a Unix mechanism, and symlinks
// are not what a Windows host (or Wine) has there. The Windows run covers
// the SCM flow instead.

func TestEnabledSysv(t *testing.T) {
	h := host
	h.root = t.TempDir()
	testkit.Replace(t, &host, h)
	if on, _ := enabled(context.Background(), Target{GOOS: "linux", Platform: "unix-systemv"}, Spec{}, nil); on {
		t.Fatal("enabled without rc links")
	}
	dir := filepath.Join(host.root, "etc", "rc2.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../init.d/svc-ctl", filepath.Join(dir, "S01svc-ctl")); err != nil {
		t.Fatal(err)
	}
	if on, _ := enabled(context.Background(), Target{GOOS: "linux", Platform: "unix-systemv"}, Spec{}, nil); !on {
		t.Fatal("not enabled with an S link in rc2.d")
	}
}

func TestRemoveInitLeftovers(t *testing.T) {
	root := t.TempDir()
	links, pidFile := initLeftovers(root)
	for _, l := range links {
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ours, theirs := links[0], filepath.Join(filepath.Dir(links[2]), "S50other")
	if err := os.Symlink("/etc/init.d/svc-ctl", ours); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/init.d/other", links[2]); err != nil { // our name, someone else's script
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/init.d/svc-ctl", theirs); err != nil { // not a name we create
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(pidFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pidFile, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := removeInitLeftovers(root); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{ours: false, links[2]: true, theirs: true, pidFile: false} {
		_, err := os.Lstat(p)
		if exists := err == nil; exists != want {
			t.Errorf("%s exists = %v, want %v", p, exists, want)
		}
	}
}
