//go:build unix

package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// CheckPermissions refuses a config file that anyone but root could change,
// for when the agent runs as root: the file must not be group- or
// world-writable and must be owned by root, and its directory must be owned
// by root and not group- or world-writable unless sticky (else anyone who
// can write there can replace the file). Symlinks are followed: the file
// that is read is the one judged. Every problem found is reported, each
// with the command that fixes it; each wraps ErrInsecurePermissions.
func CheckPermissions(path string) error { return checkPermissions("config", path, nil) }

// checkPermissions is CheckPermissions for a file of the given kind
// ("config", "env_file"): each message names it as what it is. A directory
// already in dirs (another file of the same check lives there) is not
// judged again, so its problem is printed once; dirs may be nil.
func checkPermissions(what, path string, dirs map[string]bool) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", path, err)
	}
	dir := filepath.Dir(real)
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", dir, err)
	}
	var errs []error
	errs = append(errs, ownerProblem(what, real, fi))
	if fi.Mode().Perm()&0o022 != 0 {
		errs = append(errs, insecure("%s %s is writable by its group or by everyone (mode %#o); run: chmod go-w %s",
			what, real, fi.Mode().Perm(), real))
	}
	if dirs[dir] {
		return errors.Join(errs...)
	}
	if dirs != nil {
		dirs[dir] = true
	}
	errs = append(errs, ownerProblem("directory", dir, di))
	if di.Mode().Perm()&0o022 != 0 && di.Mode()&fs.ModeSticky == 0 {
		errs = append(errs, insecure("directory %s of the %s is writable by its group or by everyone (mode %#o), so they can replace the %s; run: chmod go-w %s",
			dir, what, di.Mode().Perm(), what, dir))
	}
	return errors.Join(errs...)
}

// ownerProblem refuses a file or directory not owned by root.
func ownerProblem(what, path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	return insecure("%s %s is owned by %s, not root, who can change what the agent runs; run: chown root %s",
		what, path, describeUID(st.Uid), path)
}

func describeUID(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return fmt.Sprintf("user %s (uid %s)", u.Username, id)
	}
	return "uid " + id
}

func insecure(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInsecurePermissions}, args...)...)
}

// checkDirPermissions refuses a directory that anyone but root can add a
// file to (an include directory: a file added there is read as config).
// The sticky bit does not help here: it keeps others from replacing a file,
// not from adding one. A directory that does not exist is no problem yet.
func checkDirPermissions(what, dir string) error {
	di, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check permissions of %s: %w", dir, err)
	}
	errs := []error{ownerProblem(what, dir, di)}
	if di.Mode().Perm()&0o022 != 0 {
		errs = append(errs, insecure("%s %s is writable by its group or by everyone (mode %#o), so they can add a file the agent reads as config; run: chmod go-w %s",
			what, dir, di.Mode().Perm(), dir))
	}
	return errors.Join(errs...)
}
