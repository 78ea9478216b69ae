package runtrace

import (
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
)

var (
	// ErrAlreadyFinished: Finish found the run no longer "running"; the
	// verdict already recorded was kept.
	ErrAlreadyFinished = errors.New("run already finished")
	// ErrNotFound: no run with that id (never written, or pruned).
	ErrNotFound = errors.New("run not found")
	// ErrBadReason: an outcome/reason pair outside the closed list.
	ErrBadReason = errors.New("invalid outcome or reason")
	// ErrBadTrigger: a trigger outside the closed list.
	ErrBadTrigger = errors.New("invalid trigger")
	// ErrNewerSchema: the file was written by a newer svc-ctl; it was not changed.
	ErrNewerSchema = errors.New("database schema is newer than this svc-ctl")
	// ErrDamaged: the file is truncated, not a database, or not svc-ctl's.
	ErrDamaged = errors.New("database is damaged")
	// ErrBusy: another process held the write lock for longer than BusyTimeout.
	ErrBusy = errors.New("database is busy")
	// ErrReadOnly: a write on a Store opened with Options.ReadOnly.
	ErrReadOnly = errors.New("database opened read-only")
)

// SQLite primary result codes (the low byte of an extended code).
const (
	codeBusy    = 5
	codeLocked  = 6
	codeCorrupt = 11
	codeNotADB  = 26
)

func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

func isBusy(err error) bool {
	c := sqliteCode(err)
	return c == codeBusy || c == codeLocked
}

func isCorrupt(err error) bool {
	c := sqliteCode(err)
	return c == codeCorrupt || c == codeNotADB
}

// damagedError names the file and says what to do; it unwraps to ErrDamaged
// and to the underlying cause.
type damagedError struct {
	path  string
	what  string
	cause error
}

func (e *damagedError) Error() string {
	s := fmt.Sprintf("run_trace database %s is damaged: %s", e.path, e.what)
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s + "; stop svc-ctl, move the file aside (keep it for inspection, with its -wal and -shm files) " +
		"and start again: svc-ctl will create a new one"
}

func (e *damagedError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrDamaged}
	}
	return []error{ErrDamaged, e.cause}
}

func damaged(path, what string, cause error) error {
	return &damagedError{path: path, what: what, cause: cause}
}

// busyError replaces SQLite's "database is locked" with what happened and
// what to do; the driver error stays reachable with errors.As.
type busyError struct {
	path   string
	waited time.Duration
	cause  error
}

func (e *busyError) Error() string {
	return fmt.Sprintf("run_trace database %s was locked by another process for %s; retry, and if it persists "+
		"look for a hung svc-ctl or sqlite3 process holding it", e.path, e.waited.Round(time.Millisecond))
}

func (e *busyError) Unwrap() []error { return []error{ErrBusy, e.cause} }
