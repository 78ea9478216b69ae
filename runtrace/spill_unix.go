//go:build unix

package runtrace

import (
	"os"
	"path/filepath"
	"strconv"
)

// spillRoots: root's per-boot runtime directory (/run, a tmpfs on Linux),
// a user's $XDG_RUNTIME_DIR, then the temp directory (a private
// subdirectory per user). These are rarely on the state dir's file system.
func spillRoots() []string {
	var ds []string
	if os.Geteuid() == 0 {
		ds = append(ds, filepath.Join(runDir, "svc-ctl"))
	} else if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		ds = append(ds, filepath.Join(x, "svc-ctl"))
	}
	return append(ds, filepath.Join(os.TempDir(), "svc-ctl-"+strconv.Itoa(os.Geteuid())))
}
