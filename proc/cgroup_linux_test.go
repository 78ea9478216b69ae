package proc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/testkit"
)

func TestUnifiedPath(t *testing.T) {
	for in, want := range map[string]string{
		"0::/system.slice/svc-ctl.service\n":                      "/system.slice/svc-ctl.service",
		"12:pids:/x\n1:name=systemd:/y\n0::/user.slice/u.service": "/user.slice/u.service",
	} {
		if got, ok := unifiedPath([]byte(in)); !ok || got != want {
			t.Errorf("unifiedPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := unifiedPath([]byte("4:memory:/x\n")); ok {
		t.Error("a cgroup v1-only file gave a v2 path")
	}
	if got := unescapeMount(`/sys/fs/my\040cgroup`); got != "/sys/fs/my cgroup" {
		t.Errorf("unescapeMount = %q", got)
	}
}

// Only a directory named like an instance cgroup, on cgroup v2, is ever
// read as a tree: a record naming the root must not make svc-ctl signal it.
func TestValidCgroupRefusesOthers(t *testing.T) {
	mnt, ok := Cgroup2Mount()
	if !ok {
		t.Skip("no cgroup v2 mounted")
	}
	for _, dir := range []string{mnt, filepath.Join(mnt, "system.slice"), filepath.Join(mnt, "svc-web-xyz"),
		mnt + "/a/../svc-web-0123456789ab", "svc-web-0123456789ab",
		filepath.Join(t.TempDir(), "svc-web-0123456789ab")} {
		if err := validCgroup(dir); err == nil {
			t.Errorf("validCgroup(%q) accepted it", dir)
		}
		if pids, err := cgroupProcs(dir); err == nil && len(pids) > 0 {
			t.Errorf("cgroupProcs(%q) listed %v", dir, pids)
		}
	}
	if err := validCgroup(filepath.Join(mnt, "svc-web-0123456789ab")); err != nil {
		t.Errorf("a well-named instance cgroup was refused: %v", err)
	}
}

// DelegatedCgroup at its seam: systemd's mark decides; without it the
// reason names Delegate=yes.
func TestDelegatedCgroup(t *testing.T) {
	if _, ok := Cgroup2Mount(); !ok {
		t.Skip("no cgroup v2 mounted")
	}
	testkit.Replace(t, &delegated, func(string) bool { return false })
	if _, ok, why := DelegatedCgroup(); ok || !strings.Contains(why, "Delegate=yes") {
		t.Fatalf("undelegated: ok=%v why=%q; want a reason naming Delegate=yes", ok, why)
	}
	testkit.Replace(t, &delegated, func(string) bool { return true })
	dir, ok, why := DelegatedCgroup()
	if os.Geteuid() != 0 {
		return // writable only to root here
	}
	if !ok || !filepath.IsAbs(dir) {
		t.Fatalf("delegated: %q, %v, %q; want our cgroup", dir, ok, why)
	}
	if d2, _, _ := DelegatedCgroupOf(int32(os.Getpid())); d2 != dir {
		t.Fatalf("DelegatedCgroupOf(self) = %q, want %q", d2, dir)
	}
}
