package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"svcctl/internal/fsutil"
)

// PrevPath names where RotateLog moves a log: runtime.log -> runtime.prev.log,
// foo -> foo.prev (no extension; a dot-file like .log counts as none).
func PrevPath(logPath string) string {
	ext := filepath.Ext(logPath)
	if ext == "" || ext == filepath.Base(logPath) {
		return logPath + ".prev"
	}
	return strings.TrimSuffix(logPath, ext) + ".prev" + ext
}

// RotateLog renames the log at logPath to PrevPath(logPath), replacing the
// previous prev, and fsyncs the directory. The log's data is fsynced first, so
// what the failing instance wrote is on disk under its new name. Nothing is
// ever deleted or truncated: the rename moves the whole file.
//
// A missing log is not an error (the service never wrote one). Anything that
// is not a regular file (a symlink, /dev/null, a pipe) is left where it is:
// the person chose that target, and moving a device is never right.
//
// On Unix the old instance, if still running, keeps writing into the renamed
// file, so its last words land in the prev log too. On Windows the rename
// fails while another process holds the log open without FILE_SHARE_DELETE;
// then the error is returned and runtime.log is left untouched.
func RotateLog(logPath string) error {
	return rotate(logPath, syncLog(logPath))
}

// logSync is an fsync of a log's data, started and then waited for: ran
// says it ran at all (the log was a regular file when it started).
type logSync func() (ran bool, err error)

// syncLog starts the fsync of logPath's data, when it is a regular file.
// It needs no order with the snapshot line: PrepareSince fsyncs the two at
// the same time, and the rename waits on both.
func syncLog(logPath string) logSync {
	fi, err := os.Lstat(logPath)
	if err != nil || !fi.Mode().IsRegular() {
		return func() (bool, error) { return false, nil }
	}
	done := make(chan error, 1)
	go func() { done <- fsutil.SyncFile(logPath) }()
	return func() (bool, error) { return true, <-done }
}

// rotate is RotateLog with the fsync of the log's data already started.
func rotate(logPath string, synced logSync) error {
	ran, err := synced()
	fi, lerr := os.Lstat(logPath)
	if errors.Is(lerr, fs.ErrNotExist) {
		return nil
	}
	if lerr != nil {
		return fmt.Errorf("rotate log %s: %w", logPath, lerr)
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	if !ran { // it appeared since
		err = fsutil.SyncFile(logPath)
	}
	if err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	prev := PrevPath(logPath)
	if err := os.Rename(logPath, prev); err != nil {
		return fmt.Errorf("rotate log %s to %s: %w", logPath, prev, err)
	}
	if err := fsutil.SyncDir(filepath.Dir(logPath)); err != nil {
		return fmt.Errorf("rotate log %s: %w", logPath, err)
	}
	return nil
}
