package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a directory pinned by an open handle. A privileged svc-ctl acts
// on files outside its state dir (a service's log, in a directory the
// service's user may own) only through one: every open, truncate, copy,
// rename and read names a file *in the pinned directory*, never a path, so
// whoever can change the path later (replace the directory, or one above it,
// by a symbolic link, or exchange it with another directory) changes nothing
// of what svc-ctl does. Only the pin itself walks the path, and it follows no
// link on any element of it (Linux: openat2 with RESOLVE_NO_SYMLINKS, else
// a walk with O_NOFOLLOW|O_DIRECTORY from "/"; macOS: O_NOFOLLOW_ANY, else
// the walk; Windows: no reparse point on any element, and the directory held
// open so that it cannot be renamed away).
//
// Every file a Dir opens is opened without following a link and without
// blocking (a FIFO planted at a log's name cannot hang the agent), and is
// checked on its descriptor before anything is done to it: a regular file,
// with one link (a hard link to a root-only file is refused), owned by one
// of the owners the caller names. Non-blocking mode is cleared only then.
//
// A Dir is safe for concurrent use; Close waits for no one, and an
// operation after Close fails with os.ErrClosed.
type Dir struct {
	path string
	sys  dirSys
}

// Owners are the users a file in a Dir may belong to for svc-ctl to act on
// it: the agent's user and, for a service's log, the user it runs as. Empty:
// any owner (a per-user svc-ctl, which acts only as itself). Not checked on
// Windows, where services run as the agent's account.
type Owners []int

// ErrLinked marks a file with more than one name: a hard link another user
// made to a file they could not otherwise touch (where the kernel's
// protected_hardlinks is off). svc-ctl never truncates, copies, renames or
// reads such a file on their behalf.
var ErrLinked = errors.New("has more than one hard link")

// ErrReplaced marks a pinned directory whose path now names another
// directory (or a link): refused, never followed.
var ErrReplaced = errors.New("was replaced since svc-ctl checked it")

// Path is the path the directory was pinned at, for messages and for
// handing a file's name to a person.
func (d *Dir) Path() string { return d.path }

// Join is the path of name in d, for messages.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Open opens name in d for reading, checked as OpenFile checks.
func (d *Dir) Open(name string, owners Owners) (*os.File, error) {
	return d.OpenFile(name, os.O_RDONLY, 0, owners)
}

// checkName refuses anything but one element of a path: a Dir acts on its
// own entries only.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("fsutil: %q is not a file name in a directory", name)
	}
	return nil
}

// dirLinkError is a link met on the way to a directory being pinned.
func dirLinkError(link, whole string) error {
	if link == whole {
		return fmt.Errorf("%s %w: svc-ctl reaches a log's directory without following links another user could change; write the directory the link points to in the config", link, ErrSymlink)
	}
	return fmt.Errorf("%s (on the way to %s) %w: svc-ctl reaches a log's directory without following links another user could change; write the path the link points to in the config", link, whole, ErrSymlink)
}

func linkedError(path string, n uint64) error {
	return fmt.Errorf("%s %w (%d): it may be another file's hard link, so svc-ctl does not act on it; remove it (rm %s) and let svc-ctl create the file", path, ErrLinked, n, path)
}

// SameFile reports whether a and b describe the same file: os.SameFile,
// also for the FileInfo a Dir's Lstat returns.
func SameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return false
	}
	if ka, ok := fileKey(a); ok {
		kb, ok := fileKey(b)
		return ok && ka == kb
	}
	return os.SameFile(a, b)
}
