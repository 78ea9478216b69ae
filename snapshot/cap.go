package snapshot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"svcctl/internal/fsutil"
)

// RotatedPath names where CapLog keeps what it cut from a running service's
// log: runtime.log -> runtime.log.1. One generation is kept.
func RotatedPath(logPath string) string { return logPath + ".1" }

// Capped says what CapLog did.
type Capped struct {
	Size int64 // the log's size when it was found past the cap
	Kept int64 // bytes copied to the rotated file (its newest end, at most the limit)
}

// CapLog keeps a running service's log under limit bytes without stopping it
// (log_max, docs/configuration.md): when the log at logPath is larger than
// limit, its newest limit bytes are copied to RotatedPath(logPath) (replacing
// the previous generation, fsynced) and the log is truncated in place. The
// service keeps writing through its O_APPEND descriptor, from offset 0. It
// returns nil, nil when the log is within limit or missing.
//
// What the service writes between the copy and the truncation is lost: that
// is the price of a rotation the service knows nothing about (copytruncate).
// The log is opened without following a link, and is truncated only if the
// path still names the file that was copied: a restart that renamed it to
// runtime.prev.log meanwhile must not see its evidence truncated (the
// watchdog also holds its per-service log lock around both).
func CapLog(logPath string, limit int64) (*Capped, error) {
	return CapLogWith(logPath, limit, CapOptions{})
}

// CapOptions is how CapLogWith cuts a log in a flood (one cut again within
// a second): the flood writes on while a cut copies and truncates, so what
// bounds the log on disk is how soon a cut starts and how long it takes.
type CapOptions struct {
	// Trigger: cut once the log is larger than this, keeping all of it (at
	// most the limit) in the rotated file; 0: the limit. Starting a flood's
	// cut at half the cap keeps its peak near the cap.
	Trigger int64
	// Quick: no fsyncs. The copy is replaced again before the disk would
	// keep it, and an fsync during a flood waits for the flood's own dirty
	// pages (ext4's ordered mode), time in which it writes on past the cap.
	// The copy is as durable as the log it came from, which the service did
	// not sync either.
	Quick bool
}

// CapLogWith is CapLog as o says.
func CapLogWith(logPath string, limit int64, o CapOptions) (*Capped, error) {
	if limit <= 0 {
		return nil, nil
	}
	trigger := limit
	if o.Trigger > 0 && o.Trigger < limit {
		trigger = o.Trigger
	}
	durable := !o.Quick
	fi, err := os.Lstat(logPath)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (!fi.Mode().IsRegular() || fi.Size() <= trigger)) {
		return nil, nil // within the cap, or not a file of ours to cut (a link, /dev/null)
	}
	if err != nil {
		return nil, fmt.Errorf("cap log %s: %w", logPath, err)
	}
	f, err := fsutil.OpenFile(logPath, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("cap log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cap log %s: %w", logPath, err)
	}
	size := st.Size()
	start := max(0, size-limit)
	if err := copyTail(f, start, size-start, RotatedPath(logPath), st.Mode().Perm(), durable); err != nil {
		return nil, fmt.Errorf("cap log %s: %w", logPath, err)
	}
	if now, err := os.Lstat(logPath); err != nil || !os.SameFile(now, st) {
		return nil, fmt.Errorf("cap log %s: the log was replaced while it was copied: not truncated", logPath)
	}
	if err := f.Truncate(0); err != nil {
		return nil, fmt.Errorf("cap log %s: truncate: %w", logPath, err)
	}
	return &Capped{Size: size, Kept: size - start}, nil
}

// TrimFront keeps only the newest limit bytes of the file at path (a
// runtime.prev.log that a restart moved aside while the service flooded its
// log between two cuts): they are copied to a new file that replaces it. It
// reports whether it trimmed; a missing file, a link or one within limit is
// left alone.
func TrimFront(path string, limit int64) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (!fi.Mode().IsRegular() || fi.Size() <= limit)) || limit <= 0 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trim %s: %w", path, err)
	}
	f, err := fsutil.Open(path)
	if err != nil {
		return false, fmt.Errorf("trim: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return false, fmt.Errorf("trim %s: %w", path, err)
	}
	start := max(0, st.Size()-limit)
	tmp, err := writeTail(f, start, st.Size()-start, path, st.Mode().Perm(), true)
	// Closed before the rename: Windows refuses to replace a file that is
	// open (even shared for delete), and the copy is complete.
	f.Close()
	if err == nil {
		err = replace(tmp, path, true)
	}
	if err != nil {
		return false, fmt.Errorf("trim %s: %w", path, err)
	}
	return true, nil
}

// copyTail writes n bytes of f from off into a new file that then replaces
// dst, fsynced when durable: the copy is on disk before the original is
// truncated.
func copyTail(f *os.File, off, n int64, dst string, perm os.FileMode, durable bool) error {
	tmp, err := writeTail(f, off, n, dst, perm, durable)
	if err != nil {
		return err
	}
	return replace(tmp, dst, durable)
}

// writeTail writes n bytes of f from off into a new file beside dst,
// fsynced when durable, and returns its name.
func writeTail(f *os.File, off, n int64, dst string, perm os.FileMode, durable bool) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", err
	}
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = io.Copy(tmp, io.NewSectionReader(f, off, n))
	}
	if err == nil && durable {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// replace renames tmp onto dst and, when durable, syncs the directory; tmp
// is removed if the rename fails.
func replace(tmp, dst string, durable bool) error {
	if err := fsutil.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	if !durable {
		return nil
	}
	return fsutil.SyncDir(filepath.Dir(dst))
}

// TailSince returns the last n lines a service instance wrote to the log at
// logPath, reading at most maxBytes of each file: when the log holds fewer
// than n lines because CapLog cut it since the instance started (the
// rotated file is newer than since), the rotated file's end comes first. A
// zero since reads the log alone.
func TailSince(logPath string, since time.Time, n int, maxBytes int64) ([]string, error) {
	lines, err := fsutil.TailLines(logPath, n, maxBytes)
	if err != nil || len(lines) >= n || since.IsZero() {
		return lines, err
	}
	rot := RotatedPath(logPath)
	fi, err := os.Lstat(rot)
	if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
		return lines, nil // none, or an earlier instance's
	}
	older, err := fsutil.TailLines(rot, n-len(lines), maxBytes)
	if err != nil {
		return lines, nil // the log's own lines are still the evidence
	}
	return append(older, lines...), nil
}
