package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// MaxBytes caps snapshots.jsonl. Past it, the oldest entries are dropped.
const MaxBytes = 5 << 20

// trimTarget is the size a trim cuts the file down to. It is below MaxBytes so
// that a file at the cap is not rewritten on every following append.
const trimTarget = MaxBytes - MaxBytes/4

// FilePerm is the mode of snapshots.jsonl: it names the service's environment
// and holds its log lines.
const FilePerm os.FileMode = 0o600

// Append writes e as one JSON line at the end of the file at path (created
// 0600, parents 0700), fsyncs it, and fsyncs the directory when the file is
// new. The file is never rotated: when it has grown past MaxBytes it is then
// trimmed from the front at a line boundary, keeping the newest entries, and
// always the one just written.
//
// If an earlier write was cut short (the file does not end in a newline), the
// new line starts on a line of its own: the broken line stays, and Read skips
// and counts it.
func Append(path string, e Entry) error {
	w, err := startAppend(path, e)
	if err != nil {
		return err
	}
	return w.finish(false)
}

// appending is a line written, whose fsync runs (Append waits for it at
// once; PrepareSince meanwhile rotates the log).
type appending struct {
	path    string
	lineLen int64
	size    int64 // the file's size after the line
	created bool
	synced  <-chan error
}

// startAppend writes e's line and starts its fsync. A line it could not
// write is an error here; the fsync's is finish's.
func startAppend(path string, e Entry) (*appending, error) {
	line, err := marshalLine(normalized(e))
	if err != nil {
		return nil, fmt.Errorf("append snapshot to %s: %w", path, err)
	}
	f, created, err := openAppend(path)
	if err != nil {
		return nil, fmt.Errorf("append snapshot to %s: %w", path, err)
	}
	size, err := writeLine(f, line)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("append snapshot to %s: %w", path, err)
	}
	synced := make(chan error, 1)
	// The file is closed once synced, before finish returns, so a trim may
	// rename over it (Windows refuses to replace an open file).
	go func() { synced <- errors.Join(syncErr(f.Sync()), f.Close()) }()
	return &appending{path: path, lineLen: int64(len(line)), size: size, created: created, synced: synced}, nil
}

// finish waits for the line's fsync, fsyncs the directory of a file it
// created (unless dirSynced: the caller fsynced that directory since), and
// trims the file once it has grown past MaxBytes.
func (w *appending) finish(dirSynced bool) error {
	if err := <-w.synced; err != nil {
		return fmt.Errorf("append snapshot to %s: %w", w.path, err)
	}
	if w.created && !dirSynced {
		// The new name must survive a power loss as surely as its content.
		if err := fsutil.SyncDir(filepath.Dir(w.path)); err != nil {
			return fmt.Errorf("append snapshot to %s: %w", w.path, err)
		}
	}
	if w.size <= MaxBytes {
		return nil
	}
	if err := trimFront(w.path, w.lineLen); err != nil {
		return fmt.Errorf("trim %s past %d bytes: %w", w.path, MaxBytes, err)
	}
	return nil
}

func syncErr(err error) error {
	if err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	return nil
}

// marshalLine encodes e as one line. JSON never holds a raw newline, so one
// entry is one line; HTML escaping is off so log lines stay readable.
func marshalLine(e Entry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("encode entry: %w", err)
	}
	return buf.Bytes(), nil
}

// openAppend opens path for appending and says whether it created it. O_EXCL
// first makes "created" exact without a racy stat.
func openAppend(path string) (*os.File, bool, error) {
	if err := fsutil.EnsureDir(filepath.Dir(path)); err != nil {
		return nil, false, err
	}
	const flags = os.O_RDWR | os.O_APPEND | os.O_CREATE
	// fsutil.OpenFile never follows a link: one planted as snapshots.jsonl
	// would have root append the evidence to a file of the planter's choice.
	f, err := fsutil.OpenFile(path, flags|os.O_EXCL, FilePerm)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Errorf("create: %w", err)
	}
	f, err = fsutil.OpenFile(path, flags, FilePerm)
	if err != nil {
		return nil, false, fmt.Errorf("open: %w", err)
	}
	return f, false, nil
}

// writeLine writes line in one call (so concurrent readers never see half
// of it interleaved with another write) and returns the new size.
func writeLine(f *os.File, line []byte) (int64, error) {
	broken, err := endsMidLine(f)
	if err != nil {
		return 0, err
	}
	if broken {
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(line); err != nil {
		return 0, fmt.Errorf("write: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return fi.Size(), nil
}

// endsMidLine reports whether f is non-empty and its last byte is not '\n'.
func endsMidLine(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("stat: %w", err)
	}
	if fi.Size() == 0 {
		return false, nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return false, fmt.Errorf("read last byte: %w", err)
	}
	return last[0] != '\n', nil
}

// trimFront keeps the newest whole lines that fit in trimTarget (and the
// newest line, lastLen bytes, whatever its size), written to a temporary file,
// fsynced and renamed over path. A crash at any point leaves either the old
// file or the trimmed one, never a torn one: the newest line is never lost.
func trimFront(path string, lastLen int64) error {
	tail, err := readFrom(path, trimTarget, lastLen)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, tail, FilePerm)
}

// readFrom reads the end of path and returns it starting at a line boundary:
// the last keep bytes, moved forward to the start of the first whole line, or
// the last lastLen bytes (the newest line) if that line alone is longer.
func readFrom(path string, keep, lastLen int64) ([]byte, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if lastLen > keep {
		keep = lastLen
	}
	// Read one byte more than we keep: if it is '\n', the window starts on a
	// line boundary already.
	from := max(size-keep-1, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, from, size-from))
	if err != nil {
		return nil, err
	}
	if from == 0 {
		return buf, nil
	}
	i := bytes.IndexByte(buf, '\n')
	if i < 0 || i == len(buf)-1 {
		// No boundary but the final newline: should not happen while the
		// newest line is at most keep bytes, but never keep a torn front.
		return nil, fmt.Errorf("no line boundary in the last %d bytes", keep)
	}
	return buf[i+1:], nil
}
