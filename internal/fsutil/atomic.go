package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data so that a reader (or a crash) sees
// either the old content or the new one, never a mix: it writes a temporary
// file in the same directory (a rename is only atomic within one file system),
// fsyncs it, renames it over path and fsyncs the directory so the rename itself
// is durable. Missing parent directories are created 0700.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// ReplaceFile is WriteFileAtomic without the fsyncs: a reader still sees the
// old content or the new, but a power loss may keep the old. For files
// rewritten often with nothing new to keep (a healthy cycle's bookkeeping),
// where two fsyncs would be most of the cost.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, false)
}

func writeAtomic(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file beside %s: %w", path, err)
	}
	if err := fillTemp(tmp, data, perm, durable); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// fillTemp sets the final mode, writes, fsyncs and closes f. The mode is set
// explicitly because CreateTemp always uses 0600 and perm may differ.
func fillTemp(f *os.File, data []byte, perm os.FileMode, durable bool) error {
	err := f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// SyncFile fsyncs an existing regular file by path, so data another process
// wrote into it (a service's log) is on disk before the caller moves on. It
// opens the file write-only without truncating because Windows flushes only
// handles with write access; anything that is not a regular file is left alone.
func SyncFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s for fsync: %w", path, err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return nil
}
