//go:build !unix

package jobs

import (
	"os"
	"path/filepath"
	"sync"

	"svcctl/internal/fsutil"
)

var (
	parentMu  sync.Mutex
	parentDir *fsutil.Dir
)

// resultParent is the pinned parent of every run's result directory: a
// private directory in the agent's temp directory (jobs never run as
// another user on Windows).
func resultParent() (*fsutil.Dir, error) {
	parentMu.Lock()
	defer parentMu.Unlock()
	if parentDir != nil {
		return parentDir, nil
	}
	d, err := fsutil.EnsurePinnedDir(filepath.Join(os.TempDir(), "svc-ctl-results"))
	if err != nil {
		return nil, err
	}
	parentDir = d
	return d, nil
}
