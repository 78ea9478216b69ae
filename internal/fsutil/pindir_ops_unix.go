//go:build unix

package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// What is done in a pinned directory, each by its descriptor (the *at
// calls): a path is never resolved again once the directory is pinned, and
// every file opened there is checked on its own descriptor.

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

// TrustedOwners are the owners a privileged svc-ctl acts on in a Dir:
// root (the agent) and uids (a service's user). A per-user svc-ctl acts
// only with its own rights: nil, any.
func TrustedOwners(uids ...int) Owners {
	if os.Geteuid() != 0 {
		return nil
	}
	return append(Owners{0}, uids...)
}
