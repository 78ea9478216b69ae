package snapshot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
// (docs/configuration.md, log_max): when the log is larger than limit, its
// newest limit bytes are copied to its Rotated file (runtime.log.1,
// replacing the previous generation, fsynced) and the log is truncated in
// place. The service keeps writing through its O_APPEND descriptor, from
// offset 0. It returns nil, nil when the log is within limit or missing.
//
// What the service writes between the copy and the truncation is lost: that
// is the price of a rotation the service knows nothing about (copytruncate).
// Everything happens in the log's pinned directory (Log): the log is opened
// there and checked on its descriptor, the copy is created and renamed
// there, and the log is truncated only if its name still names the file
// that was copied: a restart that renamed it to runtime.prev.log meanwhile
// must not see its evidence truncated (the watchdog also holds its
// per-service log lock around both).
func CapLog(l Log, limit int64) (*Capped, error) {
	return CapLogWith(l, limit, CapOptions{})
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
func CapLogWith(l Log, limit int64, o CapOptions) (*Capped, error) {
	if limit <= 0 {
		return nil, nil
	}
	trigger := limit
	if o.Trigger > 0 && o.Trigger < limit {
		trigger = o.Trigger
	}
	durable := !o.Quick
	fi, err := l.Dir.Lstat(l.Name)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (!fi.Mode().IsRegular() || fi.Size() <= trigger)) {
		return nil, nil // within the cap, or not a file of ours to cut (a link)
	}
	if err != nil {
		return nil, fmt.Errorf("cap log %s: %w", l.Path(), err)
	}
	f, err := l.open(os.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("cap log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cap log %s: %w", l.Path(), err)
	}
	size := st.Size()
	start := max(0, size-limit)
	if err := copyTail(f, start, size-start, l.Rotated(), st.Mode().Perm(), durable); err != nil {
		return nil, fmt.Errorf("cap log %s: %w", l.Path(), err)
	}
	if now, err := l.Dir.Lstat(l.Name); err != nil || !fsutil.SameFile(now, st) {
		return nil, fmt.Errorf("cap log %s: the log was replaced while it was copied: not truncated", l.Path())
	}
	if err := f.Truncate(0); err != nil {
		return nil, fmt.Errorf("cap log %s: truncate: %w", l.Path(), err)
	}
	return &Capped{Size: size, Kept: size - start}, nil
}

// TrimFront keeps only the newest limit bytes of the file l names (a
// runtime.prev.log that a restart moved aside while the service flooded its
// log between two cuts): they are copied to a new file that replaces it,
// in the same pinned directory. It reports whether it trimmed; a missing
// file, a link or one within limit is left alone.
func TrimFront(l Log, limit int64) (bool, error) {
	fi, err := l.Dir.Lstat(l.Name)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && (!fi.Mode().IsRegular() || fi.Size() <= limit)) || limit <= 0 {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trim %s: %w", l.Path(), err)
	}
	f, err := l.open(os.O_RDONLY)
	if err != nil {
		return false, fmt.Errorf("trim: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return false, fmt.Errorf("trim %s: %w", l.Path(), err)
	}
	start := max(0, st.Size()-limit)
	tmp, err := writeTail(f, start, st.Size()-start, l, st.Mode().Perm(), true)
	// Closed before the rename: Windows refuses to replace a file that is
	// open (even shared for delete), and the copy is complete.
	f.Close()
	if err == nil {
		err = replace(l, tmp, true)
	}
	if err != nil {
		return false, fmt.Errorf("trim %s: %w", l.Path(), err)
	}
	return true, nil
}

// copyTail writes n bytes of f from off into a new file that then replaces
// dst, fsynced when durable: the copy is on disk before the original is
// truncated.
func copyTail(f *os.File, off, n int64, dst Log, perm os.FileMode, durable bool) error {
	tmp, err := writeTail(f, off, n, dst, perm, durable)
	if err != nil {
		return err
	}
	return replace(dst, tmp, durable)
}

// writeTail writes n bytes of f from off into a new file beside dst (in its
// pinned directory), fsynced when durable, and returns its name.
func writeTail(f *os.File, off, n int64, dst Log, perm os.FileMode, durable bool) (string, error) {
	tmp, name, err := dst.Dir.CreateTemp("."+dst.Name+".tmp-", perm)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(tmp, io.NewSectionReader(f, off, n))
	if err == nil && durable {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err != nil {
		dst.Dir.Remove(name)
		return "", err
	}
	return name, nil
}

// replace renames tmp onto dst within its directory and, when durable,
// syncs the directory; tmp is removed if the rename fails.
func replace(dst Log, tmp string, durable bool) error {
	if err := dst.Dir.Rename(tmp, dst.Name); err != nil {
		dst.Dir.Remove(tmp)
		return err
	}
	if !durable {
		return nil
	}
	return dst.Dir.Sync()
}

// TailSince returns the last n lines a service instance wrote to its log,
// reading at most maxBytes of each file: when the log holds fewer than n
// lines because CapLog cut it since the instance started (the rotated file
// is newer than since), the rotated file's end comes first. A zero since
// reads the log alone.
func TailSince(l Log, since time.Time, n int, maxBytes int64) ([]string, error) {
	lines, err := fsutil.TailLinesIn(l.Dir, l.Name, n, maxBytes, l.Owners)
	if err != nil || len(lines) >= n || since.IsZero() {
		return lines, err
	}
	rot := l.Rotated()
	fi, err := rot.Dir.Lstat(rot.Name)
	if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
		return lines, nil // none, or an earlier instance's
	}
	older, err := fsutil.TailLinesIn(rot.Dir, rot.Name, n-len(lines), maxBytes, rot.Owners)
	if err != nil {
		return lines, nil // the log's own lines are still the evidence
	}
	return append(older, lines...), nil
}
