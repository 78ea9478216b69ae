//go:build unix

package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	} else if err := checkLinksOnTheWay(exe); err != nil {
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

// checkLinksOnTheWay: the service is registered with exe as given, not with
// the file it resolves to, so every link on the way to that file is run
// through again at every boot. Each must be root's, in a directory that
// only root can change (and each directory above it): a root-owned binary
// reached through a link in a user's directory is that user's to retarget.
func checkLinksOnTheWay(exe string) error {
	done, rest := "/", strings.Split(strings.TrimPrefix(filepath.Clean(exe), "/"), "/")
	for hops := 0; len(rest) > 0; {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done) // done has no link in it: .. is lexical here
			continue
		}
		next := filepath.Join(done, elem)
		fi, err := os.Lstat(next)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if hops++; hops > 40 {
			return fmt.Errorf("%s: too many links", exe)
		}
		if owner, _ := fsutil.Owner(fi); owner != 0 {
			return fmt.Errorf("the link %s on the way to the binary is owned by uid %d, who can point it elsewhere", next, owner)
		}
		if err := fsutil.CheckDirChain(done); err != nil {
			return fmt.Errorf("the link %s on the way to the binary can be replaced: %w", next, err)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return err
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(strings.TrimPrefix(target, "/"), "/"), rest...)
	}
	return nil
}
