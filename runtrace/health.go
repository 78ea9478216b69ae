package runtrace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"svcctl/internal/fsutil"
)

// Cause is why the ledger cannot take a write: a closed list, so `status`,
// `verify`, metrics and the runbook speak of the same few conditions, each
// with its own fix.
type Cause string

// Causes of a failing ledger.
const (
	CauseDiskFull   Cause = "disk-full"  // ENOSPC, SQLITE_FULL
	CauseQuota      Cause = "quota"      // EDQUOT
	CauseReadOnly   Cause = "read-only"  // EROFS: the file system is mounted read-only
	CausePermission Cause = "permission" // EACCES/EPERM, or the database file is not writable
	CauseBusy       Cause = "busy"       // another process held the write lock past the busy timeout
	CauseDamaged    Cause = "damaged"    // SQLITE_CORRUPT / not a database
	CauseIO         Cause = "io-error"   // any other failed write or sync (SQLITE_IOERR)
)

// Words is the cause as `status` prints it.
func (c Cause) Words() string {
	switch c {
	case CauseDiskFull:
		return string(fsutil.NoSpace)
	case CauseQuota:
		return string(fsutil.NoQuota)
	case CauseReadOnly:
		return string(fsutil.ReadOnly)
	case CausePermission:
		return string(fsutil.Denied)
	case CauseBusy:
		return "locked by another process"
	case CauseDamaged:
		return "database damaged"
	case CauseIO:
		return "I/O error"
	}
	return string(c)
}

// Fix is what a person does about the cause (docs/runbook.md says more).
func (c Cause) Fix() string {
	switch c {
	case CauseDiskFull:
		return "free space on that file system; svc-ctl writes what is waiting as soon as it can"
	case CauseQuota:
		return "raise the quota of the agent's user or free space it owns"
	case CauseReadOnly:
		return "the file system is mounted read-only (often after errors): check it and remount read-write"
	case CausePermission:
		return "the agent's user cannot write there: restore the owner and mode of the state dir (0700) and svc-ctl.db (0600)"
	case CauseBusy:
		return "another process holds the database: look for a hung svc-ctl or sqlite3 process"
	case CauseDamaged:
		return "stop svc-ctl, move svc-ctl.db (and its -wal and -shm files) aside and start again"
	}
	return "see the agent's log (svc-ctl logs agent)"
}

// causeOf maps a file-system write problem onto a Cause.
func causeOf(p fsutil.WriteProblem) (Cause, bool) {
	switch p {
	case fsutil.NoSpace:
		return CauseDiskFull, true
	case fsutil.NoQuota:
		return CauseQuota, true
	case fsutil.ReadOnly:
		return CauseReadOnly, true
	case fsutil.Denied:
		return CausePermission, true
	}
	return "", false
}

// SQLite primary result codes of a failed write.
const (
	codePerm     = 3
	codeReadOnly = 8
	codeIOErr    = 10
	codeFull     = 13
	codeCantOpen = 14
	codeAuth     = 23
)

// WriteFailure reports whether err means the ledger could not take a write
// (the disk, the file system, the file, another process), as opposed to a
// refusal of the write itself (an invalid reason, a finished run, a closed
// store): only the first kind is worth keeping the row for and retrying.
// SQLite does not pass on the errno of a failed write; where its code is
// ambiguous, a small probe write beside the database finds out.
func (s *Store) WriteFailure(err error) (Cause, bool) {
	return writeFailure(err, filepath.Dir(s.path))
}

// ClassifyFailure is WriteFailure for an error met without a Store (Open
// failed); dir is the database's directory.
func ClassifyFailure(err error, dir string) (Cause, bool) { return writeFailure(err, dir) }

func writeFailure(err error, dir string) (Cause, bool) {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, ErrAlreadyFinished), errors.Is(err, ErrNotFound), errors.Is(err, ErrBadReason),
		errors.Is(err, ErrBadTrigger), errors.Is(err, ErrReadOnly):
		return "", false
	case errors.Is(err, ErrBusy):
		return CauseBusy, true
	case errors.Is(err, ErrDamaged):
		return CauseDamaged, true
	}
	if c, ok := causeOf(fsutil.ProblemOf(err)); ok {
		return c, true
	}
	switch sqliteCode(err) {
	case codeFull:
		return CauseDiskFull, true
	case codeBusy, codeLocked:
		return CauseBusy, true
	case codeCorrupt, codeNotADB:
		return CauseDamaged, true
	case codeReadOnly, codePerm, codeCantOpen, codeAuth:
		if c, ok := causeOf(fsutil.ProblemOf(fsutil.ProbeWrite(dir))); ok {
			return c, true
		}
		return CausePermission, true // the directory takes writes: the file itself does not
	case codeIOErr:
		if c, ok := causeOf(fsutil.ProblemOf(fsutil.ProbeWrite(dir))); ok {
			return c, true
		}
		return CauseIO, true
	}
	return "", false
}

// Health is the ledger's write health as a writer (the agent's Queue) sees
// it. The zero FreeBytes with Up false and CauseDiskFull is the usual case
// of a full disk; FreeBytes is -1 when it could not be measured.
type Health struct {
	Up    bool      `json:"up"`
	Since time.Time `json:"since,omitzero"` // when writes began to fail (while down)
	Cause Cause     `json:"cause,omitempty"`
	Error string    `json:"error,omitempty"` // the last failure, shortened
	// Dir is the directory of the database: the file system that is full.
	Dir       string `json:"dir"`
	FreeBytes int64  `json:"free_bytes"`
	// Pending is how many row writes wait (a begun row, a finished row, the
	// verdict of a row written earlier); PendingEvents the events without a
	// row (an agent event).
	Pending       int `json:"pending_rows"`
	PendingEvents int `json:"pending_events,omitempty"`
	// WrittenLate and Lost count the row writes of the current condition (of
	// the last one, once up again): written late in order, or dropped when
	// the queue was full (the oldest first).
	WrittenLate int       `json:"written_late"`
	Lost        int       `json:"lost"`
	RecoveredAt time.Time `json:"recovered_at,omitzero"`
	// Totals over this process's life, for metrics.
	TotalWrittenLate int `json:"total_written_late"`
	TotalLost        int `json:"total_lost"`
}

// Summary is the condition in one line: "disk full (0 B free on
// /var/lib/svc-ctl), 14 rows waiting".
func (h Health) Summary() string {
	if h.Up {
		return "ok"
	}
	s := h.Cause.Words()
	if h.Cause == CauseDiskFull || h.Cause == CauseQuota {
		if h.FreeBytes >= 0 {
			s += fmt.Sprintf(" (%s free on %s)", FormatBytes(h.FreeBytes), h.Dir)
		} else {
			s += " (on " + h.Dir + ")"
		}
	} else {
		s += " (" + h.Dir + ")"
	}
	s += fmt.Sprintf(", %d rows waiting", h.Pending)
	if h.Lost > 0 {
		s += fmt.Sprintf(", %d lost (queue full)", h.Lost)
	}
	return s
}

// FormatBytes prints a size in binary units: "0 B", "512 B", "3.2 MiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// freeBytes measures dir's free space, -1 when it cannot be told.
func freeBytes(dir string) int64 {
	n, err := fsutil.FreeSpace(dir)
	if err != nil {
		return -1
	}
	return int64(min(n, 1<<62))
}
