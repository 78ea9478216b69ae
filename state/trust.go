package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// Check makes the state directory safe to use before anything in it is
// read or written (with a user-writable state_dir,
// planted links made root append a snapshot to a root-only file, create a
// lock at any path, copy a root-only file into agent.log, and SIGTERM a root
// process named by a forged pid file).
//
// The directory is created 0700 if missing and must be a directory, not a
// link to one. A privileged process also refuses a state dir, or anything
// in it, that another user owns or can write, and a parent directory that
// lets another user replace the state dir; every problem names the path and
// the chown/chmod that fixes it. Links anywhere in the tree are refused.
func Check(p Paths, privileged bool) error {
	if err := checkParent(filepath.Dir(p.State), privileged); err != nil {
		return err
	}
	if err := fsutil.EnsureStateDir(p.State, privileged); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return checkTree(p, privileged)
}

// CheckExisting is Check without creating anything: the same verdict on the
// state dir as it is, for `svc-ctl verify`, which never changes anything. A
// state dir that does not exist yet passes: nothing in it can be planted.
func CheckExisting(p Paths, privileged bool) error {
	if err := checkParent(filepath.Dir(p.State), privileged); err != nil {
		return err
	}
	if _, err := os.Lstat(p.State); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := fsutil.CheckDir(p.State); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return checkTree(p, privileged)
}

// checkTree refuses, for a privileged process, anything in the state dir
// that another user owns or can write, and every link in it.
func checkTree(p Paths, privileged bool) error {
	if !privileged {
		return nil
	}
	if err := fsutil.CheckTree(p.State, os.Geteuid()); err != nil {
		return fmt.Errorf("refusing state dir %s: another user could steer what root writes, copies or signals:\n%w", p.State, err)
	}
	return nil
}

// checkParent refuses a parent that another user can write without the
// sticky bit: they could rename the state dir away and put their own in its
// place. A sticky parent (/tmp) is fine: only the owner may rename there.
func checkParent(dir string, privileged bool) error {
	if !privileged {
		return nil
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // created below with 0700 parents
	}
	if err != nil {
		return fmt.Errorf("state dir parent %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSticky != 0 {
		return nil
	}
	if err := fsutil.CheckOwnedBy(dir, os.Geteuid(), 0); err != nil {
		return fmt.Errorf("refusing the parent of the state dir: another user could replace the state dir:\n%w", err)
	}
	return nil
}

// DeniedError is a state file or directory this process may not read: the
// agent runs as another user (root). It says so and what to do, instead of
// the answer a missing file would give ("the agent is stopped", "has the
// agent ever run?").
type DeniedError struct {
	Path string
	Err  error
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("permission denied reading %s: run as root or as the agent's user", e.Path)
}

func (e *DeniedError) Unwrap() error { return e.Err }

// Denied wraps err in a *DeniedError when it is a permission error; other
// errors come back as they are.
func Denied(path string, err error) error {
	var d *DeniedError
	if err == nil || errors.As(err, &d) || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return &DeniedError{Path: path, Err: err}
}

// Readable reports whether this process may read the state directory: nil,
// or a *DeniedError naming what it may not read. A state dir that does not
// exist yet is readable (there is nothing in it).
func Readable(p Paths) error {
	for _, path := range []string{p.State, p.DB()} {
		if _, err := os.Stat(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Denied(path, err)
		}
	}
	if f, err := fsutil.Open(p.DB()); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Denied(p.DB(), err)
	}
	return nil
}
