//go:build !unix && !windows

package runtrace

import (
	"os"
	"path/filepath"
)

func spillRoots() []string { return []string{filepath.Join(os.TempDir(), "svc-ctl")} }
