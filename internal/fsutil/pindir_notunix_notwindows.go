//go:build !unix && !windows

package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// dirSys is the path alone here: these platforms never run a privileged
// agent.
type dirSys struct{}

// OpenDir checks that path is a directory and not a link.
func OpenDir(path string) (*Dir, error) {
	if err := CheckDir(path); err != nil {
		return nil, err
	}
	return &Dir{path: filepath.Clean(path)}, nil
}

// EnsurePinnedDir creates path and opens it as OpenDir does.
func EnsurePinnedDir(path string) (*Dir, error) {
	if err := EnsureDir(path); err != nil {
		return nil, err
	}
	return OpenDir(path)
}

func (d *Dir) Close() error                        { return nil }
func (d *Dir) Same(o *Dir) bool                    { return o != nil && o.path == d.path }
func (d *Dir) Stat() (fs.FileInfo, error)          { return os.Stat(d.path) }
func (d *Dir) Gone() bool                          { return false }
func (d *Dir) Sync() error                         { return SyncDir(d.path) }
func (d *Dir) Lstat(n string) (fs.FileInfo, error) { return os.Lstat(d.Join(n)) }
func (d *Dir) Remove(n string) error               { return os.Remove(d.Join(n)) }
func (d *Dir) Rename(a, b string) error            { return os.Rename(d.Join(a), d.Join(b)) }

func (d *Dir) OpenFile(name string, flag int, perm os.FileMode, owners Owners) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	return openFile(d.Join(name), flag, perm)
}

func (d *Dir) CreateTemp(prefix string, perm os.FileMode) (*os.File, string, error) {
	f, err := os.CreateTemp(d.path, prefix+"*")
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(f.Name()), errors.Join(f.Chmod(perm))
}

func (d *Dir) Names() ([]string, error) {
	ents, err := os.ReadDir(d.path)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if err != nil {
		return names, fmt.Errorf("list %s: %w", d.path, err)
	}
	return names, nil
}

func fileKey(fs.FileInfo) ([2]uint64, bool)        { return [2]uint64{}, false }
func TrustedOwners(uids ...int) Owners             { return nil }
func Canonical(path string, trusted ...int) string { return filepath.Clean(path) }

func (d *Dir) Mkdir(name string, perm os.FileMode) error { return os.Mkdir(d.Join(name), perm) }
func (d *Dir) Lchown(name string, uid, gid int) error    { return nil }
func (d *Dir) Chmod(perm os.FileMode) error              { return os.Chmod(d.path, perm) }
func (d *Dir) Sub(name string) (*Dir, error)             { return OpenDir(d.Join(name)) }
