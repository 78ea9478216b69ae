package runtrace

import (
	"os"
	"path/filepath"
)

// spillRoots: the temp directory of the agent's account (for LocalSystem,
// C:\Windows\Temp), in a private subdirectory.
func spillRoots() []string {
	return []string{filepath.Join(os.TempDir(), "svc-ctl")}
}
