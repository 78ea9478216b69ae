package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/internal/fsutil"
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

// realTemp is t.TempDir without links on its path (macOS: /var/folders).
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// snapLog is the log at path as the watchdog cuts and rotates it.
func snapLog(t *testing.T, path string) snapshot.Log {
	t.Helper()
	d, err := fsutil.OpenDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return snapshot.Log{Dir: d, Name: filepath.Base(path)}
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
	dir := realTemp(t)
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
	if c, err := snapshot.CapLog(snapLog(t, l.Path), 4096); err != nil || c == nil {
		t.Fatalf("cap: %+v, %v", c, err)
	}
	want = append(want, w.lines(20)...)
	look()
	// A restart: the log moves aside, the old instance writes its last
	// words into the moved file, and the new instance starts a new log.
	if err := snapshot.RotateLog(snapLog(t, l.Path)); err != nil {
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
	dir := realTemp(t)
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
	if _, err := snapshot.CapLog(snapLog(t, l.Path), 4096); err != nil {
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
	dir := realTemp(t)
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

// TestLogsReadOnlyThroughThePin: a root reader of a service whose user
// owns the log's directory reads through the directory it pinned; a link
// there, a hard link to another file, or the directory swapped for a link
// to a root-only one never shows another file's lines. Failed before: the
// log was opened by path, its directories followed.
func TestLogsReadOnlyThroughThePin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows refuses to rename a pinned directory (its handle shares no delete): internal/fsutil's TestPinnedDirWindows")
	}
	root := realTemp(t)
	logs := filepath.Join(root, "logs")
	secretDir := filepath.Join(root, "secret")
	for _, d := range []string{logs, secretDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(secretDir, "runtime.log"), []byte("root only secret\n"), 0o600)
	l := pinned(serviceLog(logs))
	defer l.Close()
	os.WriteFile(l.Path, []byte("ours\n"), 0o600)
	if res, err := TailLog(l, TailOptions{}); err != nil || !slices.Equal(res.Lines, []string{"ours"}) {
		t.Fatalf("tail: %v, %v", res, err)
	}
	os.Rename(logs, logs+".away")
	if err := os.Symlink(secretDir, logs); err != nil {
		t.Fatal(err)
	}
	res, err := TailLog(l, TailOptions{})
	if err != nil || !slices.Equal(res.Lines, []string{"ours"}) {
		t.Fatalf("after the swap the reader read %q, %v: want the pinned directory's file", res.Lines, err)
	}
	if lines, err := LastLines(l, 5, 1<<10); err != nil || !slices.Equal(lines, []string{"ours"}) {
		t.Fatalf("LastLines after the swap: %q, %v", lines, err)
	}
	os.Remove(filepath.Join(logs+".away", "runtime.log"))
	if err := os.Link(filepath.Join(secretDir, "runtime.log"), filepath.Join(logs+".away", "runtime.log")); err != nil {
		t.Fatal(err)
	}
	if _, err := TailLog(l, TailOptions{}); !errors.Is(err, fsutil.ErrLinked) {
		t.Fatalf("a hard link read: %v", err)
	}
	// A fresh reader pins nothing through the link.
	if _, err := TailLog(pinned(serviceLog(logs)), TailOptions{}); !errors.Is(err, fsutil.ErrSymlink) {
		t.Fatalf("a reader through a linked directory: %v", err)
	}
}
