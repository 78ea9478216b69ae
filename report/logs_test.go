package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"svcctl/internal/fsutil"
	"testing"
	"time"

	"svcctl/snapshot"
)

// logWriter appends numbered lines to a service's log as a service does
// (O_APPEND, one descriptor kept open across a size cut), through the file
// svc-ctl opens for it (fsutil.OpenAppend: on Windows shared for deletion,
// so the pre-restart rotation can rename it while it is open).
type logWriter struct {
	t *testing.T
	f *os.File
	n int
}

func newLogWriter(t *testing.T, path string) *logWriter {
	t.Helper()
	f, err := fsutil.OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &logWriter{t: t, f: f}
}

func (w *logWriter) lines(k int) []string {
	var out []string
	for range k {
		w.n++
		line := fmt.Sprintf("line %04d %s", w.n, strings.Repeat("x", 80))
		if _, err := fmt.Fprintln(w.f, line); err != nil {
			w.t.Fatal(err)
		}
		out = append(out, line)
	}
	return out
}

func serviceLog(dir string) Log {
	path := filepath.Join(dir, "runtime.log")
	return Log{Name: "web", Kind: LogService, Path: path, Moved: []string{snapshot.PrevPath(path)},
		Cut: snapshot.RotatedPath(path), Live: true}
}

// TestFollowAcrossCutAndRestart: a follower sees every line a service
// writes across a log_max cut (copied to runtime.log.1 and truncated in
// place, then grown back past where the follower was) and a restart's
// rotation (runtime.log moved to runtime.prev.log, the old instance's last
// words written after the move, a new runtime.log), each said in a note.
func TestFollowAcrossCutAndRestart(t *testing.T) {
	dir := t.TempDir()
	l := serviceLog(dir)
	w := newLogWriter(t, l.Path)
	want := w.lines(5)
	res, err := TailLog(l, TailOptions{Lines: 2})
	if err != nil || !slices.Equal(res.Lines, want[3:]) {
		t.Fatalf("tail: %q, %v; want the last 2 lines", res.Lines, err)
	}
	var got, notes []string
	f := &follower{l: l, pos: res.pos, out: func(line LogLine) {
		if line.Note {
			notes = append(notes, line.Text)
			return
		}
		got = append(got, line.Text)
	}}
	look := func() {
		t.Helper()
		if err := f.look(); err != nil {
			t.Fatal(err)
		}
	}
	want = want[:0]
	want = append(want, w.lines(3)...)
	look()
	// A cut the follower missed: 40 lines, the cut, then more lines than
	// the follower had read before it, so the size alone would not tell.
	want = append(want, w.lines(40)...)
	if c, err := snapshot.CapLog(l.Path, 4096); err != nil || c == nil {
		t.Fatalf("cap: %+v, %v", c, err)
	}
	want = append(want, w.lines(20)...)
	look()
	// A restart: the log moves aside, the old instance writes its last
	// words into the moved file, and the new instance starts a new log.
	if err := snapshot.RotateLog(l.Path); err != nil {
		t.Fatal(err)
	}
	want = append(want, w.lines(2)...)
	w2 := newLogWriter(t, l.Path)
	w2.n = 1000
	want = append(want, w2.lines(3)...)
	look()
	if !slices.Equal(got, want) {
		t.Fatalf("followed %d lines, want %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "cut at log_max") || !strings.Contains(notes[1], "moved to runtime.prev.log") {
		t.Fatalf("notes: %q", notes)
	}
}

// TestFollowSaysWhatACutLost: when the place the follower read last is no
// longer in the cut's copy, it does not pretend: a note says lines may be
// missing.
func TestFollowSaysWhatACutLost(t *testing.T) {
	dir := t.TempDir()
	l := serviceLog(dir)
	w := newLogWriter(t, l.Path)
	w.lines(3)
	res, _ := TailLog(l, TailOptions{})
	var notes []string
	f := &follower{l: l, pos: res.pos, out: func(line LogLine) {
		if line.Note {
			notes = append(notes, line.Text)
		}
	}}
	w.lines(200) // far more than the 4 KiB the cut keeps
	if _, err := snapshot.CapLog(l.Path, 4096); err != nil {
		t.Fatal(err)
	}
	if err := f.look(); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "may be missing") {
		t.Fatalf("notes: %q", notes)
	}
}

// TestTailSince: --since keeps lines stamped since then, with the
// unstamped lines that follow a stamped one (a stack trace); a log with no
// stamps is printed whole and says it could not filter.
func TestTailSince(t *testing.T) {
	dir := t.TempDir()
	l := serviceLog(dir)
	old := time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339)
	recent := time.Now().Add(-time.Minute).Format("2006-01-02 15:04:05,000")
	body := "preamble\n" + old + " old line\n  old trace\n" + recent + " recent line\n  recent trace\n" +
		`{"time":"` + time.Now().UTC().Format(time.RFC3339Nano) + `","msg":"json line"}` + "\n"
	if err := os.WriteFile(l.Path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := TailLog(l, TailOptions{Since: time.Now().Add(-time.Hour), Stamp: LineTime})
	if err != nil || !res.Stamped || len(res.Lines) != 3 || !strings.HasSuffix(res.Lines[0], "recent line") || res.Lines[1] != "  recent trace" {
		t.Fatalf("since 1h: %q (stamped %v), %v", res.Lines, res.Stamped, err)
	}
	os.WriteFile(l.Path, []byte("a\nb\nc\n"), 0o600)
	res, err = TailLog(l, TailOptions{Since: time.Now().Add(-time.Hour), Stamp: LineTime, Lines: 2})
	if err != nil || res.Stamped || !slices.Equal(res.Lines, []string{"b", "c"}) {
		t.Fatalf("no stamps: %q (stamped %v), %v", res.Lines, res.Stamped, err)
	}
}
