package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The last lines of a log: from its end, bounded in lines and bytes, since
// a time (a line's own stamp says when it was written).

// LogLine is one line of a log, without its newline, or a note from svc-ctl
// about the file itself (a rotation followed, a gap).
type LogLine struct {
	Text string
	Note bool
}

// TailOptions choose what TailLog prints first.
type TailOptions struct {
	Lines int       // the last this many lines; 0 = all
	Since time.Time // only lines stamped at or after this (zero: no filter)
	// Stamp reads a line's time (LineTime); nil: no line has one.
	Stamp func(line []byte) (time.Time, bool)
}

// TailResult is what TailLog read: the lines, and the offset and last bytes
// to follow from.
type TailResult struct {
	Lines []string
	// Stamped is false when --since was asked and no line carried a time
	// the reader could read: the lines are the plain tail.
	Stamped bool
	pos     position
}

// TailLog reads the last lines of the log (all with Lines 0), keeping
// those at or after Since when lines carry times. A line without a time of
// its own belongs with the stamped line before it; lines before the first
// stamped one are kept only when no line carries a time at all (Stamped
// false: the caller says that --since could not be applied). A missing file
// is fs.ErrNotExist.
func TailLog(l Log, o TailOptions) (*TailResult, error) {
	f, err := l.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	res := &TailResult{pos: position{fi: fi}}
	var pre, kept ring
	pre.n, kept.n = o.Lines, o.Lines
	filter := !o.Since.IsZero() && o.Stamp != nil
	in := false
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, fi.Size()), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 || line[len(line)-1] != '\n' {
			// EOF, or a last line still being written: the follower reads
			// it again, whole.
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("read %s: %w", l.Path, err)
			}
			break
		}
		res.pos.note(line)
		body := string(bytes.TrimRight(line, "\r\n"))
		if !filter {
			kept.add(body)
			continue
		}
		if t, ok := o.Stamp([]byte(body)); ok {
			res.Stamped = true
			in = !t.Before(o.Since)
		}
		switch {
		case !res.Stamped:
			pre.add(body)
		case in:
			kept.add(body)
		}
	}
	res.Lines = kept.lines()
	if filter && !res.Stamped {
		res.Lines = pre.lines()
	}
	return res, nil
}

// ring keeps the last n strings added (all when n is 0).
type ring struct {
	n  int
	xs []string
}

func (r *ring) add(s string) {
	r.xs = append(r.xs, s)
	if r.n > 0 && len(r.xs) > 2*r.n+64 {
		r.xs = append(r.xs[:0:0], r.xs[len(r.xs)-r.n:]...)
	}
}

func (r *ring) lines() []string {
	if r.n > 0 && len(r.xs) > r.n {
		return r.xs[len(r.xs)-r.n:]
	}
	return r.xs
}

// LineTime reads the time a log line starts with: the `time` (or `ts`,
// `timestamp`) of a JSON line, or a leading RFC 3339 time, or a leading
// "2006-01-02 15:04:05" (fraction allowed, local time) as many loggers write
// it. ok is false when the line carries none of these.
func LineTime(line []byte) (time.Time, bool) {
	line = bytes.TrimLeft(line, " \t")
	if len(line) > 0 && line[0] == '{' {
		var m struct {
			Time      string `json:"time"`
			TS        string `json:"ts"`
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(line, &m) != nil {
			return time.Time{}, false
		}
		for _, v := range []string{m.Time, m.TS, m.Timestamp} {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	first, rest, _ := bytes.Cut(line, []byte(" "))
	if t, err := time.Parse(time.RFC3339Nano, string(bytes.TrimSuffix(first, []byte(",")))); err == nil {
		return t, true
	}
	second, _, _ := bytes.Cut(rest, []byte(" "))
	day := string(bytes.ReplaceAll(first, []byte("/"), []byte("-")))
	clock := string(bytes.TrimRight(second, ",:]"))
	if t, err := time.ParseInLocation("2006-01-02 15:04:05", day+" "+clock, time.Local); err == nil {
		return t, true
	}
	return time.Time{}, false
}
