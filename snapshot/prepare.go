package snapshot

import (
	"fmt"
	"path/filepath"
	"time"
)

// Prepare keeps the evidence of a failing service before it is restarted, in
// an order that is load-bearing:
//
//  1. read the last LogTailLines lines of the log (at most LogTailMaxBytes),
//  2. append e, with that tail, to snapshotsPath (fsynced),
//  3. rotate the log to its prev (fsynced), in its pinned directory.
//
// The three fsyncs (the line, the log's data, the directory after the
// rename) run at the same time, and all are done when Prepare returns; the
// rename waits only for the line to be written.
//
// Both are on disk when Prepare returns, and the caller must not spawn the new
// instance before: spawn first and the new output is written on top of the
// old, the evidence is gone. The tail is read before the rotation so it is the
// failing instance's own output.
//
// If the line cannot be written, Prepare returns the error and does NOT
// rotate. The log still holds the failure's output in place; rotating now
// would make it the prev log with no snapshot naming it, and the next
// restart's rotation would then replace it silently. Left in place, the
// caller decides: restart anyway (the new instance appends after the old
// output) or hold off and say why. (A line written whose fsync then fails
// is an error too, returned after the rotation: the disk is failing.)
//
// A log that exists but cannot be read does not stop the snapshot: the entry
// is written with LogTailError saying why its tail is empty.
//
// scrub, when not nil, is applied to every log line before it is written: a
// service may print its own secrets, and snapshots never hold them.
func Prepare(e Entry, snapshotsPath string, l Log, scrub func(string) string) error {
	return PrepareSince(e, snapshotsPath, l, time.Time{}, scrub)
}

// PrepareSince is Prepare for an instance that started at since: when a size
// rotation (CapLog) cut the log since then, the tail reaches back into the
// rotated file, so a service that was capped moments before it failed still
// leaves its last lines in the snapshot (TailSince).
func PrepareSince(e Entry, snapshotsPath string, l Log, since time.Time, scrub func(string) string) error {
	if e.Phase == "" {
		e.Phase = PhasePreRestart
	}
	tail, err := TailSince(l, since, LogTailLines, LogTailMaxBytes)
	e.LogTail, e.LogTailError = tail, ""
	if err != nil {
		e.LogTailError = err.Error()
	}
	if scrub != nil {
		for i, l := range e.LogTail {
			e.LogTail[i] = scrub(l)
		}
	}
	// Three fsyncs stand between the failing instance and its successor: the
	// log's data, the snapshot line and the directory that holds the
	// renamed log. No order is needed between them, so they run at once
	// (docs/benchmarks.md). The rename still waits for the line to be
	// written: a snapshot that could not be written leaves the log in place.
	logSynced := syncLog(l)
	w, err := startAppend(snapshotsPath, e)
	if err != nil {
		logSynced.wait()
		return fmt.Errorf("snapshot before restart, log %s not rotated: %w", l.Path(), err)
	}
	dirSynced, rerr := rotate(l, logSynced)
	if err := w.finish(dirSynced && l.Dir.Path() == filepath.Dir(snapshotsPath)); err != nil {
		return fmt.Errorf("snapshot before restart: %w", err)
	}
	if rerr != nil {
		return fmt.Errorf("snapshot before restart: %w", rerr)
	}
	return nil
}
