package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrSymlink marks a path that svc-ctl would have followed through a
// symbolic link (or, on Windows, a reparse point: a symlink or junction)
// where it opens only what it owns. Whoever planted the link would choose
// which file root writes, truncates or copies.
var ErrSymlink = errors.New("is a symbolic link")

// ErrNotRegular marks something that is not a regular file where svc-ctl
// reads or writes one (a FIFO would block the agent; a device is no log).
var ErrNotRegular = errors.New("is not a regular file")

// ErrUntrusted marks a file or directory that another user owns or can
// write: a privileged svc-ctl refuses it (see CheckPrivate).
var ErrUntrusted = errors.New("can be changed by another user")

// FilePerm is the mode of every file svc-ctl creates in its state.
const FilePerm os.FileMode = 0o600

// OpenFile is os.OpenFile that never follows a symbolic link in the last
// element of path and opens only regular files: a link there is an error
// wrapping ErrSymlink that names the path, and a FIFO, socket or device one
// wrapping ErrNotRegular. Files it creates get perm (use FilePerm).
//
// Links in the directories above path are the caller's concern: inside the
// state dir they cannot be planted once CheckPrivate has passed on each
// directory, because only the owner can create entries there.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return openFile(path, flag, perm)
}

// Open opens path for reading, as OpenFile.
func Open(path string) (*os.File, error) { return openFile(path, os.O_RDONLY, 0) }

// OpenAppend opens path for appending, creating it with FilePerm if
// missing, as OpenFile.
func OpenAppend(path string) (*os.File, error) {
	return openFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, FilePerm)
}

func symlinkError(path string) error {
	return fmt.Errorf("%s %w: svc-ctl does not follow links where it writes as its own user; remove the link (rm %s) and let svc-ctl create the file", path, ErrSymlink, path)
}

func notRegularError(path string, mode os.FileMode) error {
	return fmt.Errorf("%s %w (%s): remove it and let svc-ctl create the file", path, ErrNotRegular, mode.Type())
}

// EnsurePrivateDir creates dir with mode 0700 (and missing parents) and
// then checks that dir itself is a directory, not a link to one.
func EnsurePrivateDir(dir string) error {
	return ensurePrivateDir(dir, false)
}

// EnsureStateDir is EnsurePrivateDir for the root of svc-ctl's state. On
// Windows a privileged process gives a state dir it creates a protected
// access list (SYSTEM and Administrators only, inherited by everything in
// it), the counterpart of 0700: %ProgramData% lets every user add files to
// the folders created in it.
func EnsureStateDir(dir string, privileged bool) error {
	return ensurePrivateDir(dir, privileged)
}

func ensurePrivateDir(dir string, privileged bool) error {
	_, statErr := os.Lstat(dir)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) && privileged {
		if err := protectNewDir(dir); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	}
	return CheckDir(dir)
}

// CheckDir checks, without creating or changing anything, that dir is a
// directory and not a link to one.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check directory %s: %w", dir, err)
	}
	if isLink(fi) {
		return symlinkError(dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// maxReadFile bounds ReadFile: svc-ctl's own state files are small JSON
// documents; anything larger was not written by svc-ctl.
const maxReadFile = 16 << 20

// ReadFile reads a small state file without following a symbolic link (as
// OpenFile), at most 16 MiB.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReadFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxReadFile {
		return nil, fmt.Errorf("%s is larger than 16MiB: not a file svc-ctl wrote", path)
	}
	return b, nil
}
