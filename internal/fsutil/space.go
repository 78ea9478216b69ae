package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteProblem is why the file system refused a write, in the words people
// read in `status`: the few conditions a person can do something about, each
// with its own fix. The zero value is "none of these" (an I/O error, a bug).
type WriteProblem string

// The write problems svc-ctl tells apart.
const (
	NoSpace  WriteProblem = "disk full"             // ENOSPC, ERROR_DISK_FULL
	NoQuota  WriteProblem = "quota exceeded"        // EDQUOT, ERROR_DISK_QUOTA_EXCEEDED
	ReadOnly WriteProblem = "read-only file system" // EROFS, ERROR_WRITE_PROTECT
	Denied   WriteProblem = "permission denied"     // EACCES, EPERM, ERROR_ACCESS_DENIED
)

// ProblemOf names the write problem err carries (anywhere in its chain), or
// "" when it is none of them.
func ProblemOf(err error) WriteProblem {
	if err == nil {
		return ""
	}
	if p := errnoProblem(err); p != "" {
		return p
	}
	if errors.Is(err, fs.ErrPermission) {
		return Denied
	}
	return ""
}

// probeSize is what ProbeWrite writes: one page, the least any file system
// allocates, so a write that fits nowhere fails here too.
const probeSize = 4096

// ProbeWrite creates a small file in dir, writes a page into it and removes
// it: what a write there meets right now, for errors that do not carry the
// file system's own (SQLite reports a failed write as SQLITE_IOERR or
// SQLITE_READONLY without the errno). nil means dir took the write.
func ProbeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".svc-ctl-write-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_, err = f.Write(make([]byte, probeSize))
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if rerr := os.Remove(name); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// FreeSpace returns the bytes an unprivileged writer may still use on the
// file system holding path (or its nearest existing parent).
func FreeSpace(path string) (uint64, error) {
	for {
		if _, err := os.Stat(path); err == nil || filepath.Dir(path) == path {
			return freeSpace(path)
		}
		path = filepath.Dir(path)
	}
}
