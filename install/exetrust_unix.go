//go:build unix

package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// checkExeTrusted refuses, for a system install, an svc-ctl binary that
// anyone but root could replace: the agent runs it as root at every boot,
// so whoever can write the file, or rename it away in its directory (or in
// any directory above), runs code as root. The file must be root's and
// writable by no one else; each directory above it root's and writable by
// no one else, unless sticky (like /tmp: then only root may rename root's
// entry below it). The error names what is wrong and the fix.
func checkExeTrusted(exe string) error {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return fmt.Errorf("the svc-ctl binary %s: %w", exe, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("the svc-ctl binary %s: %w", real, err)
	}
	var problem error
	if owner, _ := fsutil.Owner(fi); owner != 0 {
		problem = fmt.Errorf("%s is owned by uid %d", real, owner)
	} else if fi.Mode().Perm()&0o022 != 0 {
		problem = fmt.Errorf("%s is writable by its group or by everyone (mode %#o)", real, fi.Mode().Perm())
	} else if err := fsutil.CheckDirChain(filepath.Dir(real)); err != nil {
		problem = err
	}
	if problem == nil {
		return nil
	}
	if errors.Is(problem, fs.ErrNotExist) {
		return problem
	}
	return fmt.Errorf("refusing to install %s as the system agent: %w; the agent runs it as root at every boot, so whoever can change it runs code as root. "+
		"Install it where only root can write, and install from there: sudo install -o root -g 0 -m 0755 %s /usr/local/bin/svc-ctl && sudo /usr/local/bin/svc-ctl install",
		real, problem, real)
}
