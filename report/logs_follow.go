package report

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"svcctl/internal/fsutil"
)

// Following a log as `tail -F` does: new lines as they come, across a
// rotation (the file renamed away and a new one in its place) and a cut.

// position is where a follower is in the live file: the file (its
// identity), how far it read, and the last bytes it read (to notice a
// truncation that the file grew back past, and to find its place in the
// copy a size rotation kept).
type position struct {
	fi     fs.FileInfo
	offset int64
	last   []byte // up to lastKeep bytes ending at offset
}

const lastKeep = 256

func (p *position) note(b []byte) {
	p.offset += int64(len(b))
	p.last = append(p.last, b...)
	if len(p.last) > lastKeep {
		p.last = append(p.last[:0:0], p.last[len(p.last)-lastKeep:]...)
	}
}

// FollowLog sends every line written to the log after res, until ctx ends,
// across the ways svc-ctl rotates logs: a size rotation (copied to Cut, the
// live file truncated in place) is followed from the copy when the place
// read last is found in it, else a note says how much may be missing; a
// replacement (a restart moved the file to the prev log, a job run started,
// lumberjack rotated agent.log) is read to its end under its new name, then
// the new file from its start. The file is opened for each look and closed
// again: a follower must never keep a restart from renaming the log
// (Windows refuses to rename a file that is open).
func FollowLog(ctx context.Context, l Log, res *TailResult, every time.Duration, out func(LogLine)) error {
	f := &follower{l: l, pos: res.pos, out: out}
	if res.pos.fi == nil {
		out(LogLine{Text: "waiting for " + l.Path + " to be created", Note: true})
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := f.look(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

type follower struct {
	l   Log
	pos position
	out func(LogLine)
}

// look reads what is new, once.
func (f *follower) look() error {
	fh, err := f.l.open()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // between a rename and the new file: the next look sees it
	}
	if err != nil {
		return err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return err
	}
	switch {
	case f.pos.fi == nil:
		f.pos = position{fi: fi}
	case !fsutil.SameFile(fi, f.pos.fi):
		f.replaced()
		f.pos = position{fi: fi}
	case fi.Size() < f.pos.offset || !f.sameTail(fh):
		f.cut()
		f.pos = position{fi: fi}
	}
	return f.readFrom(fh, fi.Size())
}

// sameTail reports whether the bytes before the follower's offset are still
// the ones it read: a size rotation that truncated the file, which grew back
// past the old offset between two looks, changed them.
func (f *follower) sameTail(fh *os.File) bool {
	n := int64(len(f.pos.last))
	if n == 0 {
		return true
	}
	b := make([]byte, n)
	if _, err := fh.ReadAt(b, f.pos.offset-n); err != nil {
		return false
	}
	return bytes.Equal(b, f.pos.last)
}

// readFrom sends the complete lines between the offset and size.
func (f *follower) readFrom(fh *os.File, size int64) error {
	if size <= f.pos.offset {
		return nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(fh, f.pos.offset, size-f.pos.offset), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			f.pos.note(line)
			f.emit(line)
			continue
		}
		if err == nil || errors.Is(err, io.EOF) {
			return nil // an unfinished last line is read again, whole, next time
		}
		return fmt.Errorf("read %s: %w", f.l.Path, err)
	}
}

func (f *follower) emit(line []byte) {
	f.out(LogLine{Text: string(bytes.TrimRight(line, "\r\n"))})
}

// replaced reads the rest of the file the follower was in, wherever it was
// moved, then says so.
func (f *follower) replaced() {
	old := f.find(f.pos.fi)
	if old == "" {
		f.out(LogLine{Text: fmt.Sprintf("%s was replaced; its last lines could not be found: following the new file", f.l.Path), Note: true})
		return
	}
	if fh, err := f.l.openIn(filepath.Base(old)); err == nil {
		if fi, err := fh.Stat(); err == nil {
			f.readFrom(fh, fi.Size())
		}
		fh.Close()
	}
	why := "rotated"
	switch f.l.Kind {
	case LogService:
		why = "moved to " + filepath.Base(old) + " (a restart: the new instance writes a new log)"
	case LogJob:
		why = "moved to " + filepath.Base(old) + " (a new run)"
	}
	f.out(LogLine{Text: fmt.Sprintf("%s %s: following the new file", filepath.Base(f.l.Path), why), Note: true})
}

// find is the path the file fi now has among the Moved globs (each a name
// pattern in the log's own directory), or "".
func (f *follower) find(fi fs.FileInfo) string {
	d, err := f.l.dirOf()
	if err != nil {
		return ""
	}
	names, _ := d.Names()
	slices.Sort(names)
	for _, g := range f.l.Moved {
		for i := len(names) - 1; i >= 0; i-- {
			if ok, _ := filepath.Match(filepath.Base(g), names[i]); !ok {
				continue
			}
			if st, err := d.Lstat(names[i]); err == nil && fsutil.SameFile(st, fi) {
				return d.Join(names[i])
			}
		}
	}
	return ""
}

// cut follows a size rotation: what the follower had not read yet is at the
// end of the copy, after the last bytes it read.
func (f *follower) cut() {
	base := filepath.Base(f.l.Path)
	if f.l.Cut == "" || len(f.pos.last) == 0 {
		f.out(LogLine{Text: base + " was truncated: following it from its start", Note: true})
		return
	}
	b, err := f.readCut()
	i := -1
	if err == nil {
		i = bytes.LastIndex(b, f.pos.last)
	}
	if i < 0 {
		f.out(LogLine{Text: fmt.Sprintf("%s was cut at log_max; lines written between two looks may be missing here (the cut kept the newest in %s)",
			base, filepath.Base(f.l.Cut)), Note: true})
		return
	}
	rest := b[i+len(f.pos.last):]
	for len(rest) > 0 {
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			break // a line cut mid-way by the copy: its start is all there is
		}
		f.emit(rest[:j+1])
		rest = rest[j+1:]
	}
	f.out(LogLine{Text: fmt.Sprintf("%s was cut at log_max (the cut is in %s): following it from its start", base, filepath.Base(f.l.Cut)), Note: true})
}

// readCut reads the copy a size rotation kept (at most log_max bytes).
func (f *follower) readCut() ([]byte, error) {
	fh, err := f.l.openIn(filepath.Base(f.l.Cut))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(fh)
}
