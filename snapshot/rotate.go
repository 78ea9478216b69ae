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
	_, err := rotate(logPath, syncLog(logPath))
	return err
}

// logSync is the fsync of a log's data, started by syncLog: ran says there
// was a regular file to fsync when it started; wait waits for it.
type logSync struct {
	ran  bool
	done <-chan error
}

func (s logSync) wait() error {
	if s.done == nil {
		return nil
	}
	return <-s.done
}

// syncLog starts the fsync of logPath's data, when it is a regular file. The
// file is opened here, so the fsync reaches the same file however soon it
// is renamed.
func syncLog(logPath string) logSync {
	fi, err := os.Lstat(logPath)
	if err != nil || !fi.Mode().IsRegular() {
		return logSync{}
	}
	done := make(chan error, 1)
	f, err := fsutil.OpenFile(logPath, os.O_WRONLY, 0)
	if err != nil {
		done <- fmt.Errorf("open %s for fsync: %w", logPath, err)
		return logSync{ran: true, done: done}
	}
	go func() {
		if err := errors.Join(f.Sync(), f.Close()); err != nil {
			done <- fmt.Errorf("fsync %s: %w", logPath, err)
		}
		close(done)
	}()
	return logSync{ran: true, done: done}
}

// rotate is RotateLog with the fsync of the log's data already started. The
// rename does not wait for it (an fsync follows the file, not its name), so
// it runs beside the directory's fsync, except where an open file cannot be
// renamed (renameWhileOpen). rotate returns once both are done; dirSynced
// says the log's directory was fsynced after the rename.
func rotate(logPath string, synced logSync) (dirSynced bool, err error) {
	var serr error
	if !renameWhileOpen {
		serr, synced = synced.wait(), logSync{}
	}
	fi, err := os.Lstat(logPath)
	if err != nil || !fi.Mode().IsRegular() {
		synced.wait() // gone, or never a regular file: nothing to rotate
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("rotate log %s: %w", logPath, err)
		}
		return false, nil
	}
	if !synced.ran && serr == nil && renameWhileOpen {
		serr = fsutil.SyncFile(logPath) // it appeared since syncLog looked
	}
	prev := PrevPath(logPath)
	if err := os.Rename(logPath, prev); err != nil {
		synced.wait()
		return false, fmt.Errorf("rotate log %s to %s: %w", logPath, prev, err)
	}
	derr := fsutil.SyncDir(filepath.Dir(logPath))
	if err := errors.Join(serr, synced.wait(), derr); err != nil {
		return derr == nil, fmt.Errorf("rotate log %s: %w", logPath, err)
	}
	return true, nil
}
