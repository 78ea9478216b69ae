package logcap

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// watchOnly is a watcher that watches the paths it is given.
type watchOnly map[string]bool

func (w watchOnly) follow(string, os.FileInfo) {}
func (w watchOnly) forget(string)              {}
func (w watchOnly) written() <-chan string     { return nil }
func (w watchOnly) watching(path string) bool  { return w[path] }
func (w watchOnly) close()                     {}

// TestLogEveryKeepsTheBoundWhereNothingWatches: a log the OS tells the
// agent about is looked at regularly every 5 s; one it does not (no
// inotify, or a file it cannot watch) keeps the 500 ms bound; an explicit
// option wins.
func TestLogEveryKeepsTheBoundWhereNothingWatches(t *testing.T) {
	log := filepath.Join(t.TempDir(), "runtime.log")
	a := &Cap{}
	if got := a.logEvery(watchOnly{log: true}, log); got != logCheckWatched {
		t.Errorf("watched log: every %s, want %s", got, logCheckWatched)
	}
	if got := a.logEvery(watchOnly{}, log); got != 500*time.Millisecond {
		t.Errorf("unwatched log: every %s, want 500ms", got)
	}
	if got := a.logEvery(noWatcher{}, log); got != 500*time.Millisecond {
		t.Errorf("no watcher: every %s, want 500ms", got)
	}
	a.Every = time.Hour
	if got := a.logEvery(watchOnly{log: true}, log); got != time.Hour {
		t.Errorf("LogCheckEvery set: every %s, want it", got)
	}
}
