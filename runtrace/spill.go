package runtrace

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"svcctl/internal/fsutil"
)

// A spill file keeps the writes a Queue still held when its process stopped
// while the ledger could not take them. It lives outside the state dir
// (SpillDirs: a full disk there is the usual reason it exists), is private
// (a 0700 directory of the writer's user, a 0600 file, written atomically),
// and is named after the ledger it belongs to, so the next agent of that
// state dir finds it and writes its rows, in order and with their times.
//
// Format: JSON lines. The first is a header (spillHeader); each other line
// is one waiting write (op).

// spillVersion is the format of the lines; an importer refuses a newer one.
const spillVersion = 1

type spillHeader struct {
	Version   int       `json:"svcctl_spill"`
	DB        string    `json:"db"`
	PID       int       `json:"pid"`
	WrittenAt time.Time `json:"written_at"`
	Rows      int       `json:"rows"`
	Lost      int       `json:"lost"` // dropped while queued (queue full), before the spill
	Cause     Cause     `json:"cause,omitempty"`
	Since     time.Time `json:"since,omitzero"`
}

// SpillDirs are the places a Queue of the ledger at dbPath spills to, best
// first (spill_*.go): a per-boot runtime directory, then the temp directory,
// then a spill directory in the state dir itself (of use when the database
// file, not the disk, refused the writes).
func SpillDirs(dbPath string) []string {
	return append(spillRoots(), filepath.Join(filepath.Dir(dbPath), "spill"))
}

// spillPrefix names the spill files of one ledger: its path, hashed.
func spillPrefix(dbPath string) string {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		abs = dbPath
	}
	sum := sha256.Sum256([]byte(abs))
	return "spill-" + hex.EncodeToString(sum[:6]) + "-"
}

// CloseResult says what Close did with the writes still waiting.
type CloseResult struct {
	Rows      int    // row writes waiting at Close (after a last try)
	SpillPath string // where they went; "" when nowhere (or nothing waited)
	// Lost counts row writes of this process that no ledger or spill file
	// holds: dropped while queued, and everything waiting when no spill
	// location took it.
	Lost   int
	Err    error // why no location took the spill
	Health Health
}

// Close tries the database once more, then spills what still waits and
// stops taking writes. ctx bounds the last try.
func (q *Queue) Close(ctx context.Context) CloseResult {
	q.Flush(ctx)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	h := q.healthLocked()
	res := CloseResult{Rows: h.Pending, Health: h}
	if len(q.ops) == 0 {
		if !h.Up {
			res.Lost = h.Lost
		}
		return res
	}
	for _, o := range q.ops {
		if o.Kind == opBegin && o.Instance == "" {
			o.Instance = q.st.inst
		}
		if (o.Kind == opFinish || o.Kind == opNote) && o.Ref < 0 {
			if real, ok := q.written[o.Ref]; ok {
				o.Ref = real
			}
		}
	}
	data, err := q.spillBytes(h)
	if err == nil {
		res.SpillPath, err = q.writeSpill(data)
	}
	if err != nil {
		res.Err, res.Lost = err, h.Pending+h.Lost
		return res
	}
	q.ops, q.rows = nil, 0
	return res
}

func (q *Queue) spillBytes(h Health) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	hdr := spillHeader{Version: spillVersion, DB: q.st.Path(), PID: os.Getpid(), WrittenAt: q.o.Now().UTC(),
		Rows: h.Pending, Lost: h.Lost, Cause: h.Cause, Since: h.Since}
	if err := enc.Encode(hdr); err != nil {
		return nil, err
	}
	for _, o := range q.ops {
		if err := enc.Encode(o); err != nil {
			return nil, fmt.Errorf("encode a waiting %s: %w", o.Kind, err)
		}
	}
	return b.Bytes(), nil
}

// writeSpill writes data into the first spill directory that takes it.
func (q *Queue) writeSpill(data []byte) (string, error) {
	name := spillPrefix(q.st.Path()) + strconv.FormatInt(q.o.Now().UnixMilli(), 10) + "-" + strconv.Itoa(os.Getpid()) + ".jsonl"
	var errs []error
	for _, dir := range q.o.SpillDirs {
		if err := privateDir(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		path := filepath.Join(dir, name)
		if err := fsutil.WriteFileAtomic(path, data, fsutil.FilePerm); err != nil {
			errs = append(errs, err)
			continue
		}
		return path, nil
	}
	return "", fmt.Errorf("spill %d bytes of waiting run_trace writes: %w", len(data), errors.Join(errs...))
}

// privateDir creates dir (0700) and checks that it is this user's own: a
// spill directory in a shared place (the temp dir) that somebody else made
// first is refused, so nobody can plant rows for a privileged agent to write.
func privateDir(dir string) error {
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return err
	}
	return fsutil.CheckPrivate(dir, os.Getuid())
}

// SpillFile is one spill file an importer took in.
type SpillFile struct {
	Path      string    `json:"path"`
	PID       int       `json:"pid"`
	WrittenAt time.Time `json:"written_at"`
	Rows      int       `json:"rows"`
	// Lost is what the spilling process had already dropped (queue full);
	// Unusable counts lines that could not be taken (a verdict whose row
	// was not in the file).
	Lost     int       `json:"lost"`
	Unusable int       `json:"unusable,omitempty"`
	Cause    Cause     `json:"cause,omitempty"`
	Since    time.Time `json:"since,omitzero"`
}

// maxSpillLine bounds one line of a spill file (a row's detail is at most
// 8 KiB; events carry their payload).
const maxSpillLine = 1 << 20

// ImportSpills takes in the spill files of this ledger, oldest first: their
// writes join the queue (the next Flush writes them) and the files are
// removed. A file is claimed by renaming it first, so two importers never
// take one file twice. A file that is not private to this user is refused
// and left in place; a damaged one is renamed *.damaged and reported.
func (q *Queue) ImportSpills() ([]SpillFile, error) {
	prefix := spillPrefix(q.st.Path())
	var paths []string
	for _, dir := range q.o.SpillDirs {
		m, _ := filepath.Glob(filepath.Join(dir, prefix+"*.jsonl"))
		paths = append(paths, m...)
	}
	sort.Slice(paths, func(i, j int) bool { return filepath.Base(paths[i]) < filepath.Base(paths[j]) })
	var out []SpillFile
	var errs []error
	for _, p := range paths {
		sf, err := q.importSpill(p)
		if err != nil {
			errs = append(errs, err)
		}
		if sf != nil {
			out = append(out, *sf)
		}
	}
	return out, errors.Join(errs...)
}

func (q *Queue) importSpill(path string) (*SpillFile, error) {
	if err := fsutil.CheckPrivate(filepath.Dir(path), os.Getuid()); err != nil {
		return nil, fmt.Errorf("spill file %s refused: %w", path, err)
	}
	if err := fsutil.CheckPrivate(path, os.Getuid()); err != nil {
		return nil, fmt.Errorf("spill file %s refused: %w", path, err)
	}
	claimed := path + ".importing"
	if err := os.Rename(path, claimed); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // another importer took it
		}
		return nil, fmt.Errorf("claim spill file %s: %w", path, err)
	}
	hdr, ops, err := readSpill(claimed)
	if err == nil && hdr.DB != q.st.Path() {
		err = fmt.Errorf("it belongs to %s, not %s", hdr.DB, q.st.Path())
	}
	if err != nil {
		bad := path + ".damaged"
		if rerr := os.Rename(claimed, bad); rerr != nil {
			bad = claimed
		}
		return nil, fmt.Errorf("spill file %s not imported (kept as %s): %w", path, bad, err)
	}
	sf := &SpillFile{Path: path, PID: hdr.PID, WrittenAt: hdr.WrittenAt, Rows: hdr.Rows, Lost: hdr.Lost,
		Cause: hdr.Cause, Since: hdr.Since}
	q.mu.Lock()
	sf.Unusable = q.takeLocked(ops)
	q.mu.Unlock()
	if err := os.Remove(claimed); err != nil {
		return sf, fmt.Errorf("remove imported spill file %s: %w", claimed, err)
	}
	return sf, nil
}

func readSpill(path string) (spillHeader, []*op, error) {
	var hdr spillHeader
	f, err := fsutil.Open(path)
	if err != nil {
		return hdr, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxSpillLine)
	if !sc.Scan() {
		return hdr, nil, errors.Join(errors.New("empty"), sc.Err())
	}
	if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil || hdr.Version == 0 {
		return hdr, nil, fmt.Errorf("line 1 is not a spill header: %v", err)
	}
	if hdr.Version > spillVersion {
		return hdr, nil, fmt.Errorf("written by a newer svc-ctl (format %d, this one reads %d)", hdr.Version, spillVersion)
	}
	var ops []*op
	for line := 2; sc.Scan(); line++ {
		o := &op{}
		if err := json.Unmarshal(sc.Bytes(), o); err != nil {
			return hdr, nil, fmt.Errorf("line %d: %w", line, err)
		}
		if err := o.check(); err != nil {
			return hdr, nil, fmt.Errorf("line %d: %w", line, err)
		}
		ops = append(ops, o)
	}
	if err := sc.Err(); err != nil {
		return hdr, nil, err
	}
	return hdr, ops, nil
}

// check refuses a line that could not be written as it stands.
func (o *op) check() error {
	switch o.Kind {
	case opBegin, opRecord:
		if o.Run == nil {
			return fmt.Errorf("%s without its run", o.Kind)
		}
		if err := checkStart(o.Run.JobID, o.Run.Trigger, o.Run.StartedAt); err != nil {
			return err
		}
		if o.Kind == opRecord {
			return checkVerdict(o.Run.Outcome, o.Run.Reason, o.Run.FinishedAt)
		}
	case opFinish:
		if o.Ref == 0 {
			return errors.New("a verdict without its row")
		}
		return checkVerdict(o.Outcome, o.Reason, o.FinishedAt)
	case opNote:
		if o.Ref == 0 {
			return errors.New("a note without its row")
		}
	case opEvents, opDeleteBeat:
	default:
		return fmt.Errorf("unknown write %q", o.Kind)
	}
	return nil
}

// takeLocked appends imported ops, giving their provisional ids new ones of
// this queue; it returns how many could not be taken.
func (q *Queue) takeLocked(ops []*op) (unusable int) {
	remap := map[int64]int64{}
	for _, o := range ops {
		if o.Emits {
			o.emit = q.o.Emit
		}
		switch o.Kind {
		case opBegin, opRecord:
			q.prov--
			remap[o.Prov] = q.prov
			o.Prov = q.prov
			if o.Kind == opBegin {
				q.begun[o.Prov] = o
			}
		case opFinish, opNote:
			if o.Ref < 0 {
				p, ok := remap[o.Ref]
				if !ok {
					unusable++
					continue
				}
				o.Ref = p
			}
		}
		q.pushLocked(o)
	}
	return unusable
}
