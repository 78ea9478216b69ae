package snapshot

import (
	"os"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// Log is a service's runtime log as the watchdog acts on it: a name in a
// pinned directory, never a path. Every rotation, cut, trim and tail below
// opens, renames and creates files through Dir only, so a user who can
// write the log's directory (the service's own user may own it) cannot
// steer them to another directory by replacing a directory of the path
// with a link; and each file is checked on its descriptor before it is
// touched (fsutil.Dir.OpenFile: a regular file, one link, owned by one of
// Owners), so neither a FIFO nor a hard link to a root-only file planted
// at a log's name is truncated, copied, renamed or read.
type Log struct {
	Dir    *fsutil.Dir
	Name   string        // runtime.log, or the base name of the `log` key
	Owners fsutil.Owners // who may own a file acted on: the agent's user, the service's
}

// Path is the log's path, for messages and records.
func (l Log) Path() string { return l.Dir.Join(l.Name) }

// Prev is where RotateLog moves the log (runtime.prev.log), in the same
// directory.
func (l Log) Prev() Log {
	return Log{Dir: l.Dir, Name: filepath.Base(PrevPath(l.Name)), Owners: l.Owners}
}

// Rotated is where CapLog keeps what it cut (runtime.log.1).
func (l Log) Rotated() Log { return Log{Dir: l.Dir, Name: RotatedPath(l.Name), Owners: l.Owners} }

// open opens the log's file with flag, checked (fsutil.Dir.OpenFile).
func (l Log) open(flag int) (*os.File, error) { return l.Dir.OpenFile(l.Name, flag, 0, l.Owners) }
