package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/proc"
)

// CgroupParent makes a cgroup v2 directory to stand for an agent's
// delegated one (name says whose: "agent", "cli"), or skips where none can be
// made (not root, no cgroup v2). At the test's end every process left in it
// or under it is killed (cgroup.kill) and the directories are removed.
func CgroupParent(t testing.TB, name string) string {
	t.Helper()
	mnt, ok := proc.Cgroup2Mount()
	if !ok {
		t.Skip("no cgroup v2 mounted")
	}
	dir := filepath.Join(mnt, fmt.Sprintf("svcctl-%s-test-%d-%d", name, os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a cgroup (%v): cgroup ownership untested here", err)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) // the whole subtree
		kids, _ := os.ReadDir(dir)
		testutil.WaitFor(t, 10*time.Second, "the test cgroup to empty", func() bool {
			for _, k := range kids {
				if k.IsDir() {
					syscall.Rmdir(filepath.Join(dir, k.Name()))
				}
			}
			return syscall.Rmdir(dir) == nil
		})
	})
	return dir
}
