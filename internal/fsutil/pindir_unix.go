//go:build unix

package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

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

// OpenFile opens name in d with flag (O_TRUNC is refused: truncation comes
// after the checks, through the descriptor), never following a link and
// never blocking, and checks what it opened: a regular file with one link,
// owned by one of owners (any, when owners is empty). Files it creates get
// perm.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode, owners Owners) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		return nil, fmt.Errorf("fsutil: open %s: O_TRUNC before the file is checked: truncate it after", d.Join(name))
	}
	path := d.Join(name)
	var fd int
	err := d.do(func(dfd int) error {
		var err error
		for {
			fd, err = unix.Openat(dfd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
			if err != unix.EINTR {
				break
			}
		}
		if err != nil && (isLinkErrno(err) || err == unix.ENXIO || err == unix.EWOULDBLOCK) {
			err = d.classify(dfd, name, err)
		}
		return err
	})
	if err != nil {
		if errors.Is(err, ErrSymlink) || errors.Is(err, ErrNotRegular) {
			return nil, err
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if err := checkOpened(fd, path, owners); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// classify turns an open's refusal into what the entry is: a link, a FIFO
// without a reader (ENXIO), a device that would block.
func (d *Dir) classify(dfd int, name string, err error) error {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return symlinkError(d.Join(name))
	case unix.S_IFREG:
		return err
	}
	return notRegularError(d.Join(name), statMode(&st))
}

// checkOpened is the check of every file a Dir opens, on its descriptor.
func checkOpened(fd int, path string, owners Owners) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return notRegularError(path, statMode(&st))
	}
	if n := uint64(st.Nlink); n != 1 {
		return linkedError(path, n)
	}
	if len(owners) > 0 && !slices.Contains(owners, int(st.Uid)) {
		return ownerError(path, int(st.Uid))
	}
	return nil
}

func ownerError(path string, owner int) error {
	return fmt.Errorf("%s is owned by %s, neither the agent's user nor the service's: it %w, so svc-ctl does not act on it; remove it (rm %s) and let svc-ctl create the file",
		path, describeUID(owner), ErrUntrusted, path)
}

// Lstat describes the entry name in d without following a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	si := &statInfo{name: name}
	err := d.do(func(dfd int) error { return unix.Fstatat(dfd, name, &si.st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: d.Join(name), Err: err}
	}
	return si, nil
}

// Rename renames from to to, both in d, replacing to (renameat: neither
// name is looked up outside d).
func (d *Dir) Rename(from, to string) error {
	if err := errors.Join(checkName(from), checkName(to)); err != nil {
		return err
	}
	err := d.do(func(dfd int) error { return unix.Renameat(dfd, from, dfd, to) })
	if err != nil {
		return &os.LinkError{Op: "rename", Old: d.Join(from), New: d.Join(to), Err: err}
	}
	return nil
}

// Remove removes the file name from d (never a directory).
func (d *Dir) Remove(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := d.do(func(dfd int) error { return unix.Unlinkat(dfd, name, 0) })
	if err != nil {
		return &fs.PathError{Op: "remove", Path: d.Join(name), Err: err}
	}
	return nil
}

// CreateTemp creates a new file in d named prefix plus a random suffix,
// exclusively (never an existing file or a link), with mode perm, open for
// reading and writing.
func (d *Dir) CreateTemp(prefix string, perm os.FileMode) (*os.File, string, error) {
	for range 100 {
		b := make([]byte, 6)
		rand.Read(b)
		name := prefix + hex.EncodeToString(b)
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600, nil)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if err := f.Chmod(perm); err != nil {
			f.Close()
			d.Remove(name)
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many tries", d.path)
}

// Sync fsyncs the directory, so that a rename or a creation in it
// survives a power loss (a no-op where the file system cannot).
func (d *Dir) Sync() error {
	if err := d.sys.f.Sync(); err != nil && !dirSyncUnsupported(err) {
		return fmt.Errorf("fsync directory %s: %w", d.path, err)
	}
	return nil
}

// Names lists the entries of d.
func (d *Dir) Names() ([]string, error) {
	var fd int
	err := d.do(func(dfd int) error {
		var err error
		fd, err = unix.Openat(dfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// statInfo is an fs.FileInfo of an entry a Dir looked at (fstatat).
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) Mode() fs.FileMode  { return statMode(&s.st) }
func (s *statInfo) ModTime() time.Time { return statMtime(&s.st) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func statMode(st *unix.Stat_t) fs.FileMode {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// fileKey is the device and inode of fi, from either stat type.
func fileKey(fi fs.FileInfo) ([2]uint64, bool) {
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
	case *syscall.Stat_t:
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
	}
	return [2]uint64{}, false
}

// statOwner is the owner in a Dir's FileInfo.
func statOwner(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*unix.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

// TrustedOwners are the owners a privileged svc-ctl acts on in a Dir:
// root (the agent) and uids (a service's user). A per-user svc-ctl acts
// only with its own rights: nil, any.
func TrustedOwners(uids ...int) Owners {
	if os.Geteuid() != 0 {
		return nil
	}
	return append(Owners{0}, uids...)
}

func statMtime(st *unix.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }

// Mkdir makes the directory name in d (mkdirat), with mode perm.
func (d *Dir) Mkdir(name string, perm os.FileMode) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := d.do(func(dfd int) error { return unix.Mkdirat(dfd, name, uint32(perm.Perm())) })
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: d.Join(name), Err: err}
	}
	return nil
}

// Lchown gives the entry name in d (never what a link points to) to uid
// and gid.
func (d *Dir) Lchown(name string, uid, gid int) error {
	if err := checkName(name); err != nil {
		return err
	}
	err := d.do(func(dfd int) error { return unix.Fchownat(dfd, name, uid, gid, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return &fs.PathError{Op: "chown", Path: d.Join(name), Err: err}
	}
	return nil
}

// Chmod sets the pinned directory's own mode.
func (d *Dir) Chmod(perm os.FileMode) error { return d.sys.f.Chmod(perm) }

// Sub pins the directory name in d: opened relative to d, never through a
// link.
func (d *Dir) Sub(name string) (*Dir, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	var fd int
	err := d.do(func(dfd int) error {
		var err error
		fd, err = openDirAt(dfd, name)
		if err != nil && isLinkErrno(err) && symlinkAt(dfd, name) {
			return symlinkError(d.Join(name))
		}
		return err
	})
	if err != nil {
		if errors.Is(err, ErrSymlink) {
			return nil, err
		}
		return nil, &fs.PathError{Op: "open directory", Path: d.Join(name), Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: d.Join(name), Err: err}
	}
	return &Dir{path: d.Join(name), sys: dirSys{f: os.NewFile(uintptr(fd), d.Join(name)), dev: uint64(st.Dev), ino: uint64(st.Ino)}}, nil
}
