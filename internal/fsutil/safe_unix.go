//go:build unix

package fsutil

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

func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	// O_NONBLOCK: opening a FIFO planted in place of a log must not hang the
	// agent; it has no effect on the regular files that pass the check below.
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) { // EMLINK: FreeBSD's answer
			if fi, lerr := os.Lstat(path); lerr == nil && isLink(fi) {
				return nil, symlinkError(path)
			}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegularError(path, fi.Mode())
	}
	return f, nil
}

func isLink(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink != 0 }

// CheckPrivate refuses path unless it is owned by uid and not writable by
// its group or others (a directory with the sticky bit, like /tmp, is not
// private either: others can create entries in it). A symbolic link is
// refused, never followed. Each problem names the path and the command
// that fixes it, and wraps ErrUntrusted (or ErrSymlink).
func CheckPrivate(path string, uid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkPrivate(path, fi, uid)
}

// CheckPrivateInfo is CheckPrivate on a FileInfo already in hand (from
// Lstat or from the Stat of an open file).
func CheckPrivateInfo(path string, fi fs.FileInfo, uid int) error {
	return checkPrivate(path, fi, uid)
}

// CheckOwnedBy is CheckPrivate with more than one acceptable owner (a log
// directory may belong to root or to the user the service runs as). The
// first uid is the one the fix names.
func CheckOwnedBy(path string, uids ...int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if owner, ok := Owner(fi); ok {
		for _, u := range uids {
			if u == owner {
				return checkPrivate(path, fi, u)
			}
		}
	}
	return checkPrivate(path, fi, uids[0])
}

func checkPrivate(path string, fi fs.FileInfo, uid int) error {
	if isLink(fi) {
		return symlinkError(path)
	}
	var errs []error
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		errs = append(errs, fmt.Errorf("%s is owned by %s, not by %s, who runs svc-ctl: it %w; run: chown %s %s",
			path, describeUID(int(st.Uid)), describeUID(uid), ErrUntrusted, userName(uid), path))
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		errs = append(errs, fmt.Errorf("%s is writable by its group or by everyone (mode %#o): it %w; run: chmod go-w %s",
			path, perm, ErrUntrusted, path))
	}
	return errors.Join(errs...)
}

// Owner returns the uid that owns fi.
func Owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statOwner(fi) // a Dir's Lstat
	}
	return int(st.Uid), true
}

func describeUID(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil {
		return fmt.Sprintf("user %s (uid %s)", u.Username, id)
	}
	return "uid " + id
}

func userName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return id
}

// NoFollow is the open flag that refuses a symbolic link as the last path
// element, for opens svc-ctl does not make itself (a lock library's): O_NOFOLLOW.
const NoFollow = syscall.O_NOFOLLOW

// CheckDirChain refuses dir when another user could write into it or
// replace it: dir and each of its parents must be owned by root or one of
// uids, and not writable by group or others unless sticky (like /tmp,
// where only an entry's owner may rename it). dir itself must not be a
// link. Each problem names the directory and the fix.
func CheckDirChain(dir string, uids ...int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if isLink(fi) {
		return symlinkError(dir)
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if err := chainProblem(d, fi, uids); err != nil {
			return err
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

// CheckDirInfo is CheckDirChain's rule for one directory whose FileInfo is
// in hand (the Stat of a pinned directory's handle): owned by root or one
// of uids, and not writable by group or others unless sticky.
func CheckDirInfo(dir string, fi fs.FileInfo, uids ...int) error { return chainProblem(dir, fi, uids) }

func chainProblem(d string, fi fs.FileInfo, uids []int) error {
	owner, _ := Owner(fi)
	ok := owner == 0
	for _, u := range uids {
		ok = ok || owner == u
	}
	if !ok {
		return fmt.Errorf("%s is owned by %s, who could replace what svc-ctl writes in it: it %w; run: chown %s %s",
			d, describeUID(owner), ErrUntrusted, userName(append(uids, 0)[0]), d)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%s is writable by its group or by everyone (mode %#o): another user could replace what svc-ctl writes in it (it %w); run: chmod go-w %s",
			d, fi.Mode().Perm(), ErrUntrusted, d)
	}
	return nil
}

// protectNewDir has nothing to add to mode 0700 here.
func protectNewDir(string) error { return nil }

// CheckAdminOnlyDir refuses dir when anyone but root could add a file to
// it or replace one in it: dir must be root's and writable by no one else
// (sticky is not enough here: anyone may add a new name to a sticky
// directory, and a new program is what a search path finds), and every
// directory above it as CheckDirChain says. A dir that does not exist yet
// is judged by the nearest directory that does: whoever can write that
// could create it.
func CheckAdminOnlyDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if isLink(fi) {
		return fmt.Errorf("%s is a symbolic link: name the directory it points to", d)
	}
	if owner, _ := Owner(fi); owner != 0 {
		return fmt.Errorf("%s is owned by %s, who could put any program there (it %w); run: chown root %s",
			d, describeUID(owner), ErrUntrusted, d)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or by everyone (mode %#o), who could put any program there (it %w); run: chmod go-w %s",
			d, fi.Mode().Perm(), ErrUntrusted, d)
	}
	return CheckDirChain(d)
}
