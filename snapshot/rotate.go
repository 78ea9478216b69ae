package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// RotateLog renames the log to its prev (runtime.prev.log), in its pinned
// directory, replacing the previous prev, and fsyncs the directory. The
// log's data is fsynced first, so what the failing instance wrote is on disk
// under its new name. Nothing is ever deleted or truncated: the rename moves
// the whole file.
//
// A missing log is not an error (the service never wrote one). Anything
// that is not a regular file (a link, a pipe) is left where it is; a
// regular file that fails the check (another hard link, a stranger's) is
// not renamed, and the error says why: the spawn that follows refuses it
// too.
//
// On Unix the old instance, if still running, keeps writing into the renamed
// file, so its last words land in the prev log too. On Windows the rename
// fails while another process holds the log open without FILE_SHARE_DELETE;
// then the error is returned and runtime.log is left untouched.
func RotateLog(l Log) error {
	_, err := rotate(l, syncLog(l))
	return err
}

// logSync is the fsync of a log's data, started by syncLog: ran says there
// was a regular file to fsync when it started; openErr that it could not be
// opened, or was refused (a hard link, a stranger's file): then it is not
// rotated either; wait waits for the fsync.
type logSync struct {
	ran     bool
	openErr error
	done    <-chan error
}

func (s logSync) wait() error {
	if s.done == nil {
		return nil
	}
	return <-s.done
}

// syncLog starts the fsync of the log's data, when it is a regular file. The
// file is opened (and checked) here, so the fsync reaches the same file
// however soon it is renamed.
func syncLog(l Log) logSync {
	fi, err := l.Dir.Lstat(l.Name)
	if err != nil || !fi.Mode().IsRegular() {
		return logSync{}
	}
	f, err := l.open(os.O_WRONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return logSync{} // gone since the look
	}
	if err != nil {
		return logSync{ran: true, openErr: err}
	}
	done := make(chan error, 1)
	go func() {
		if err := errors.Join(f.Sync(), f.Close()); err != nil {
			done <- fmt.Errorf("fsync %s: %w", l.Path(), err)
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
//
// The file is checked when syncLog opens it; a swap of the name after that
// moves a name within the pinned directory and nothing else: the rename
// never reaches outside it.
func rotate(l Log, synced logSync) (dirSynced bool, err error) {
	if synced.openErr != nil {
		return false, fmt.Errorf("rotate log: %w", synced.openErr)
	}
	var serr error
	if !renameWhileOpen {
		serr, synced = synced.wait(), logSync{ran: synced.ran}
	}
	fi, err := l.Dir.Lstat(l.Name)
	if err != nil || !fi.Mode().IsRegular() {
		synced.wait() // gone, or never a regular file: nothing to rotate
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("rotate log %s: %w", l.Path(), err)
		}
		return false, nil
	}
	if !synced.ran { // it appeared since syncLog looked: checked and fsynced now
		f, oerr := l.open(os.O_WRONLY)
		if oerr != nil {
			return false, fmt.Errorf("rotate log: %w", oerr)
		}
		serr = errors.Join(serr, f.Sync(), f.Close())
	}
	prev := l.Prev()
	if err := l.Dir.Rename(l.Name, prev.Name); err != nil {
		synced.wait()
		return false, fmt.Errorf("rotate log %s to %s: %w", l.Path(), prev.Path(), err)
	}
	derr := l.Dir.Sync()
	if err := errors.Join(serr, synced.wait(), derr); err != nil {
		return derr == nil, fmt.Errorf("rotate log %s: %w", l.Path(), err)
	}
	return true, nil
}
