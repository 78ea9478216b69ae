//go:build unix

package jobs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"svcctl/internal/fsutil"
)

// resultRoot is where a system agent keeps its runs' SVCCTL_RESULT
// directories: per boot, outside the state dir.
var resultRoot = func() string {
	if _, err := os.Stat("/run"); err == nil {
		return "/run/svc-ctl-results"
	}
	return fsutil.Canonical("/var/run/svc-ctl-results") // macOS: /private/var/run
}

var (
	parentMu  sync.Mutex
	parentDir *fsutil.Dir
)

// resultParent is the pinned parent of every run's result directory. A
// system agent's is root's, mode 0711: a job's user may reach its own
// run's directory (it knows the name) but not list, add or rename
// anything. A per-user agent's is its own, 0700, in the temp directory;
// one another user made first is refused.
func resultParent() (*fsutil.Dir, error) {
	parentMu.Lock()
	defer parentMu.Unlock()
	if parentDir != nil && !parentDir.Gone() {
		return parentDir, nil
	}
	path, mode := resultRoot(), os.FileMode(0o711)
	if os.Geteuid() != 0 {
		path, mode = filepath.Join(fsutil.Canonical(os.TempDir()), "svc-ctl-results-"+strconv.Itoa(os.Geteuid())), 0o700
	}
	d, err := fsutil.EnsurePinnedDir(path)
	if err != nil {
		return nil, err
	}
	if err := d.Chmod(mode); err != nil {
		d.Close()
		return nil, fmt.Errorf("make %s %#o: %w", path, mode, err)
	}
	fi, err := d.Stat()
	if err == nil {
		err = fsutil.CheckDirInfo(path, fi, os.Geteuid())
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	if owner, _ := fsutil.Owner(fi); owner != os.Geteuid() {
		d.Close()
		return nil, fmt.Errorf("%s is not this user's (%d): another user made it; remove it and let svc-ctl create it", path, owner)
	}
	parentDir = d
	return d, nil
}
