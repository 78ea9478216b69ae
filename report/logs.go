package report

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// Log is one log `svc-ctl logs` shows, and where the files it is rotated to
// are: what following it across rotations needs.
type Log struct {
	Name string `json:"name"` // the service or job, or "agent"
	Kind string `json:"kind"` // service | job | agent
	Path string `json:"path"`
	// Moved lists where the live file goes when it is replaced by a new one
	// (a restart's rotation to runtime.prev.log, a job run's to
	// last.prev.log, lumberjack's backups of agent.log): globs.
	Moved []string `json:"-"`
	// Cut is where a size rotation copies what it cuts before truncating
	// the live file in place (runtime.log.1); "" when there is none.
	Cut string `json:"-"`
	// Live is false for a file nothing writes any more (--prev).
	Live bool `json:"live"`

	pin *logPin // the directory, pinned at the first look (LogOf); nil: each look pins its own
}

// A log is read only through its pinned directory (fsutil.Dir): the
// directory is opened once, following no link, and every file read after
// (the log, the file a rotation moved it to, the copy a cut kept) is a name
// in it, opened without following a link and checked on its descriptor: a
// regular file with one link, owned by the agent's user or the service's.
// A root `svc-ctl logs` of a service whose user owns the log's directory
// cannot be turned into a reader of any other file of root's.

// logPin is a log's directory, pinned at the first look that finds it.
type logPin struct {
	path   string
	owners fsutil.Owners
	mu     sync.Mutex
	dir    *fsutil.Dir
}

// dirOf is the log's pinned directory (fs.ErrNotExist while it does not
// exist yet).
func (l Log) dirOf() (*fsutil.Dir, error) {
	p := l.pin
	if p == nil {
		p = &logPin{path: filepath.Dir(l.Path)}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dir == nil {
		d, err := fsutil.OpenDir(p.path)
		if err != nil {
			return nil, err
		}
		p.dir = d
	}
	return p.dir, nil
}

// openIn opens the file base (a name in the log's directory), checked.
func (l Log) openIn(base string) (*os.File, error) {
	d, err := l.dirOf()
	if err != nil {
		return nil, err
	}
	var owners fsutil.Owners
	if l.pin != nil {
		owners = l.pin.owners
	}
	return d.Open(base, owners)
}

// open opens the log's own file.
func (l Log) open() (*os.File, error) { return l.openIn(filepath.Base(l.Path)) }

// Close lets go of the log's pinned directory.
func (l Log) Close() {
	if l.pin == nil {
		return
	}
	l.pin.mu.Lock()
	defer l.pin.mu.Unlock()
	if l.pin.dir != nil {
		l.pin.dir.Close()
		l.pin.dir = nil
	}
}

// pinned gives l the directory pin its reads go through, with the owners a
// file there may have: the agent's user and uids (a service's user).
func pinned(l Log, uids ...int) Log {
	l.pin = &logPin{path: filepath.Dir(l.Path), owners: fsutil.TrustedOwners(uids...)}
	return l
}

// LogKind values.
const (
	LogService = "service"
	LogJob     = "job"
	LogAgent   = "agent"
)

// LogOf names the log of a service (its runtime.log, wherever its `log`
// key puts it), a job (last.log) or the agent (agent.log); prev asks for
// the one before (runtime.prev.log, last.prev.log). A name that is neither
// is watchdog.ErrUnknownName.
func LogOf(cfg *config.Config, name string, prev bool) (Log, error) {
	p := state.PathsOf(cfg)
	kind, bare := runtrace.SplitID(name) // watchdog:NAME and job:NAME say which, when a job and a service share a name
	switch {
	case kind == runtrace.KindWatchdog && cfg.Service(bare) != nil:
		return LogOf(cfg, bare, prev)
	case kind == runtrace.KindJob && cfg.Job(bare) != nil:
		job := cfg.Job(bare)
		if prev {
			return pinned(Log{Name: bare, Kind: LogJob, Path: p.JobPrevLog(job.Name)}), nil
		}
		return pinned(Log{Name: bare, Kind: LogJob, Path: p.JobLog(job.Name), Moved: []string{p.JobPrevLog(job.Name)}, Live: true}), nil
	case name == LogAgent:
		if prev {
			return Log{}, errors.New("agent.log has no previous file: its rotations are agent-<time>.log beside it")
		}
		backups := filepath.Join(p.State, "agent-*.log")
		return pinned(Log{Name: name, Kind: LogAgent, Path: p.AgentLog(), Moved: []string{backups}, Live: true}), nil
	case cfg.Service(name) != nil:
		svc := cfg.Service(name)
		uids := serviceUID(svc)
		if prev {
			return pinned(Log{Name: name, Kind: LogService, Path: p.PrevLog(svc)}, uids...), nil
		}
		return pinned(Log{Name: name, Kind: LogService, Path: p.RuntimeLog(svc), Moved: []string{p.PrevLog(svc)},
			Cut: p.RotatedLog(svc), Live: true}, uids...), nil
	case cfg.Job(name) != nil:
		return LogOf(cfg, runtrace.JobID(name), prev)
	}
	return Log{}, fmt.Errorf("%w: %q", watchdog.ErrUnknownName, name)
}

// serviceUID is the uid of the user the service runs as (none: the agent's,
// or one the user database no longer knows).
func serviceUID(svc *config.Service) []int {
	if id, err := svc.RunAs.Identity(); err == nil && id != nil {
		return []int{int(id.UID)}
	}
	return nil
}

// LastLines is the last n lines of the log, at most maxBytes of its end,
// read through its pinned directory (nil, nil when there is none).
func LastLines(l Log, n int, maxBytes int64) ([]string, error) {
	d, err := l.dirOf()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var owners fsutil.Owners
	if l.pin != nil {
		owners = l.pin.owners
	}
	return fsutil.TailLinesIn(d, filepath.Base(l.Path), n, maxBytes, owners)
}

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
