package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/windows"
)

// dirSys pins a directory on Windows by holding it open without
// FILE_SHARE_DELETE: while svc-ctl holds it, neither it nor a directory
// above it can be renamed or removed (NTFS refuses to rename a directory
// with an open handle below it), so its path keeps naming it and the
// operations below go by path, each refusing a reparse point.
type dirSys struct{ p *winHandle }

// winHandle is the held directory handle, apart from the Dir so that a
// cleanup can close it once the Dir is unreachable.
type winHandle struct {
	mu     sync.Mutex
	h      windows.Handle
	vol    uint32
	idx    uint64
	closed bool
}

// reparseOf says whether the open handle h is a reparse point (a symlink
// or a junction). It is the seam where Wine, which resolves links even
// when asked not to and reports no reparse point, cannot tell: the look by
// name (Lstat) before each open is the other half there.
var reparseOf = func(h windows.Handle) (bool, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return false, err
	}
	return info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0, nil
}

// OpenDir pins the directory at path (absolute), refusing a reparse point
// on any element of it.
func OpenDir(path string) (*Dir, error) { return pinDir(path, false) }

// EnsurePinnedDir is OpenDir that first creates what is missing of path.
func EnsurePinnedDir(path string) (*Dir, error) { return pinDir(path, true) }

func pinDir(path string, create bool) (*Dir, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("pin directory %s: not an absolute path", path)
	}
	path = filepath.Clean(path)
	if create {
		if err := os.MkdirAll(path, DirPerm); err != nil {
			return nil, fmt.Errorf("create directory %s: %w", path, err)
		}
	}
	vol := filepath.VolumeName(path)
	cur := vol + `\`
	for _, elem := range strings.Split(strings.TrimPrefix(path[len(vol):], `\`), `\`) {
		if elem == "" {
			continue
		}
		cur = filepath.Join(cur, elem)
		if fi, err := os.Lstat(cur); err != nil {
			return nil, &fs.PathError{Op: "open directory", Path: cur, Err: err}
		} else if isLink(fi) {
			return nil, dirLinkError(cur, path)
		}
	}
	h, err := openDirHandle(path, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE)
	if err != nil {
		return nil, &fs.PathError{Op: "open directory", Path: path, Err: err}
	}
	if rp, err := reparseOf(h); err != nil || rp {
		windows.CloseHandle(h)
		if err != nil {
			return nil, &fs.PathError{Op: "open directory", Path: path, Err: err}
		}
		return nil, dirLinkError(path, path)
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil || info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("%s is not a directory", path)
	}
	w := &winHandle{h: h, vol: info.VolumeSerialNumber, idx: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}
	d := &Dir{path: path, sys: dirSys{p: w}}
	// A Dir nothing refers to any more lets go of its directory, as an
	// *os.File does on Unix: a pin dropped by a reload must not keep the
	// directory from being renamed for as long as the agent runs.
	runtime.AddCleanup(d, func(w *winHandle) { w.closeOnce() }, w)
	return d, nil
}

func openDirHandle(path string, share uint32) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	// FILE_LIST_DIRECTORY and FILE_TRAVERSE: a handle with no data access records
	// no share mode (a FILE_READ_ATTRIBUTES handle alone lets anyone rename
	// the directory under it)
	return windows.CreateFile(p, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|windows.FILE_READ_ATTRIBUTES, share, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
}

// Close lets go of the directory.
func (d *Dir) Close() error { return d.sys.p.closeOnce() }

func (w *winHandle) closeOnce() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return os.ErrClosed
	}
	w.closed = true
	return windows.CloseHandle(w.h)
}

// Same reports whether o pins the very directory d pins.
func (d *Dir) Same(o *Dir) bool {
	return o != nil && d.sys.p.vol == o.sys.p.vol && d.sys.p.idx == o.sys.p.idx
}

// Stat is the pinned directory's own FileInfo.
func (d *Dir) Stat() (fs.FileInfo, error) { return os.Stat(d.path) }

// Gone is false: a pinned directory cannot be removed on Windows.
func (d *Dir) Gone() bool { return false }

func (d *Dir) open() error {
	d.sys.p.mu.Lock()
	defer d.sys.p.mu.Unlock()
	if d.sys.p.closed {
		return os.ErrClosed
	}
	return nil
}

// OpenFile opens name in d (never a reparse point, only a regular file
// with one link); owners are not checked on Windows.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode, owners Owners) (*os.File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if err := d.open(); err != nil {
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		return nil, fmt.Errorf("fsutil: open %s: O_TRUNC before the file is checked: truncate it after", d.Join(name))
	}
	f, err := openFile(d.Join(name), flag, perm)
	if err != nil {
		return nil, err
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "stat", Path: d.Join(name), Err: err}
	}
	if info.NumberOfLinks != 1 {
		f.Close()
		return nil, linkedError(d.Join(name), uint64(info.NumberOfLinks))
	}
	return f, nil
}

// Lstat describes the entry name in d without following a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	if err := errors.Join(checkName(name), d.open()); err != nil {
		return nil, err
	}
	return os.Lstat(d.Join(name))
}

// Rename renames from to to, both in d, replacing to.
func (d *Dir) Rename(from, to string) error {
	if err := errors.Join(checkName(from), checkName(to), d.open()); err != nil {
		return err
	}
	return Rename(d.Join(from), d.Join(to))
}

// Remove removes the file name from d.
func (d *Dir) Remove(name string) error {
	if err := errors.Join(checkName(name), d.open()); err != nil {
		return err
	}
	return os.Remove(d.Join(name))
}

// CreateTemp creates a new file in d named prefix plus a random suffix.
func (d *Dir) CreateTemp(prefix string, perm os.FileMode) (*os.File, string, error) {
	for range 100 {
		b := make([]byte, 6)
		rand.Read(b)
		name := prefix + hex.EncodeToString(b)
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm, nil)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many tries", d.path)
}

// Sync is a no-op on Windows (SyncDir).
func (d *Dir) Sync() error { return d.open() }

// Names lists the entries of d.
func (d *Dir) Names() ([]string, error) {
	if err := d.open(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(d.path)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}

// fileKey: os.SameFile compares what Windows' Lstat gives.
func fileKey(fs.FileInfo) ([2]uint64, bool) { return [2]uint64{}, false }

// TrustedOwners: owners are not checked on Windows.
func TrustedOwners(uids ...int) Owners { return nil }

// Canonical cleans path: links on Windows are refused where a Dir is
// pinned, never resolved.
func Canonical(path string, trusted ...int) string { return filepath.Clean(path) }

// Mkdir makes the directory name in d.
func (d *Dir) Mkdir(name string, perm os.FileMode) error {
	if err := errors.Join(checkName(name), d.open()); err != nil {
		return err
	}
	return os.Mkdir(d.Join(name), perm)
}

// Lchown is not supported on Windows (owners are not svc-ctl's rule there).
func (d *Dir) Lchown(name string, uid, gid int) error { return nil }

// Chmod has no meaning for a directory on Windows.
func (d *Dir) Chmod(os.FileMode) error { return d.open() }

// Sub pins the directory name in d.
func (d *Dir) Sub(name string) (*Dir, error) {
	if err := errors.Join(checkName(name), d.open()); err != nil {
		return nil, err
	}
	return OpenDir(d.Join(name))
}
