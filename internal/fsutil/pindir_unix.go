//go:build unix

package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

type dirSys struct {
	f        *os.File
	dev, ino uint64
}

// walkOnly makes OpenDir walk the path element by element even where the
// OS resolves a whole path without links in one call: the walk is what
// runs where that call is missing or filtered (an old kernel, a seccomp
// profile), and tests run both.
var walkOnly = false

// OpenDir pins the directory at path (absolute), following no symbolic
// link on any element of it: a link is an error wrapping ErrSymlink that
// names it, a missing directory one wrapping fs.ErrNotExist.
func OpenDir(path string) (*Dir, error) { return pinDir(path, false) }

// EnsurePinnedDir is OpenDir that first creates what is missing of path,
// each new directory 0700 and made through its parent's handle (mkdirat),
// so that no link swapped in meanwhile can move where it is made.
func EnsurePinnedDir(path string) (*Dir, error) { return pinDir(path, true) }

func pinDir(path string, create bool) (*Dir, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("pin directory %s: not an absolute path", path)
	}
	path = filepath.Clean(path)
	fd, err := openNoLinks(path)
	if create && errors.Is(err, unix.ENOENT) {
		fd, err = walkDir(path, true)
	}
	if err != nil {
		return nil, pinError(path, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		return nil, fmt.Errorf("%s is not a directory", path)
	}
	return &Dir{path: path, sys: dirSys{f: os.NewFile(uintptr(fd), path), dev: uint64(st.Dev), ino: uint64(st.Ino)}}, nil
}

// walkFailure is where a walk stopped: the element's path, and whether it
// was a symbolic link.
type walkFailure struct {
	at   string
	link bool
	err  error
}

func (w *walkFailure) Error() string { return w.at + ": " + w.err.Error() }
func (w *walkFailure) Unwrap() error { return w.err }

// walkDir opens path from "/" one element at a time, each with
// O_NOFOLLOW|O_DIRECTORY relative to the one before: no element can be a
// link, and no element is looked up again by name once opened.
func walkDir(path string, create bool) (int, error) {
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &walkFailure{at: "/", err: err}
	}
	cur := "/"
	for _, elem := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if elem == "" {
			continue
		}
		next := filepath.Join(cur, elem)
		nfd, err := openDirAt(fd, elem)
		if create && err == unix.ENOENT {
			if merr := unix.Mkdirat(fd, elem, 0o700); merr != nil && merr != unix.EEXIST {
				unix.Close(fd)
				return -1, &walkFailure{at: next, err: merr}
			}
			nfd, err = openDirAt(fd, elem)
		}
		if err != nil {
			link := isLinkErrno(err) && symlinkAt(fd, elem)
			unix.Close(fd)
			return -1, &walkFailure{at: next, link: link, err: err}
		}
		unix.Close(fd)
		fd, cur = nfd, next
	}
	return fd, nil
}

func openDirAt(dfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// isLinkErrno: what an open with O_NOFOLLOW answers for a link (ELOOP;
// FreeBSD EMLINK; with O_DIRECTORY some systems say ENOTDIR).
func isLinkErrno(err error) bool {
	return err == unix.ELOOP || err == unix.EMLINK || err == unix.ENOTDIR
}

func symlinkAt(dfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// pinError says why path could not be pinned, naming the link when there
// was one.
func pinError(path string, err error) error {
	var w *walkFailure
	switch {
	case errors.As(err, &w) && w.link:
		return dirLinkError(w.at, path)
	case errors.As(err, &w):
		return &fs.PathError{Op: "open directory", Path: w.at, Err: w.err}
	case errors.Is(err, unix.ELOOP):
		// openat2 met a link somewhere on the path: find it for the message.
		return dirLinkError(firstLink(path), path)
	}
	return &fs.PathError{Op: "open directory", Path: path, Err: err}
}

// firstLink is the first element of path that is a symbolic link now (the
// whole path when none is: the link went away meanwhile).
func firstLink(path string) string {
	cur := "/"
	for _, elem := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		cur = filepath.Join(cur, elem)
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return cur
		}
	}
	return path
}

// do runs fn with the directory's descriptor, which cannot be closed (and
// its number reused) while fn runs.
func (d *Dir) do(fn func(dfd int) error) error {
	rc, err := d.sys.f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// Close lets go of the directory.
func (d *Dir) Close() error { return d.sys.f.Close() }

// Same reports whether o pins the very directory d pins.
func (d *Dir) Same(o *Dir) bool {
	return o != nil && d.sys.dev == o.sys.dev && d.sys.ino == o.sys.ino
}

// Stat is the pinned directory's own FileInfo (of the directory itself,
// wherever it is now).
func (d *Dir) Stat() (fs.FileInfo, error) { return d.sys.f.Stat() }

// Gone reports whether the pinned directory was removed (no name links to
// it any more): nothing can be created in it.
func (d *Dir) Gone() bool {
	var st unix.Stat_t
	err := d.do(func(dfd int) error { return unix.Fstat(dfd, &st) })
	return err == nil && st.Nlink == 0
}
