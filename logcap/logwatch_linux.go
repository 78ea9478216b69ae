package logcap

import (
	"context"
	"os"

	"github.com/fsnotify/fsnotify"

	"svcctl/internal/fsutil"
)

// inotifyWatcher watches each service log (the file, not its directory: a
// log may live in a busy directory like /var/log) for IN_MODIFY through
// fsnotify. Nothing is buffered between the kernel and the cap loop, which
// reads at most every capReactMin: a flood's writes coalesce in the
// kernel's queue instead of waking the agent once per write.
type inotifyWatcher struct {
	w      *fsnotify.Watcher
	files  map[string]os.FileInfo // path -> the file watched there
	out    chan string
	cancel context.CancelFunc
}

// newLogWatcher returns the Linux watcher, its relay running under L2, or
// noWatcher when inotify is not available (out of instances: the schedule
// alone holds the logs then).
func (c *Cap) newLogWatcher(ctx context.Context) logWatcher {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		c.Log.Warn("log.watch_unavailable", "err", err, "hint", "logs are held to log_max by their schedule alone")
		return noWatcher{}
	}
	ctx, cancel := context.WithCancel(ctx)
	iw := &inotifyWatcher{w: w, files: map[string]os.FileInfo{}, out: make(chan string), cancel: cancel}
	c.Go(ctx, "log-watch", iw.relay)
	return iw
}

func (iw *inotifyWatcher) watching(path string) bool {
	_, ok := iw.files[path]
	return ok
}

// relay hands each write event's path to the cap loop. An overflowed
// queue loses events, not looks: the schedule still runs.
func (iw *inotifyWatcher) relay(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-iw.w.Events:
			if !ok {
				return
			}
			if !ev.Has(fsnotify.Write) {
				continue
			}
			select {
			case iw.out <- ev.Name:
			case <-ctx.Done():
				return
			}
		case _, ok := <-iw.w.Errors:
			if !ok {
				return
			}
		}
	}
}

func (iw *inotifyWatcher) follow(path string, fi os.FileInfo) {
	if old, ok := iw.files[path]; ok && fsutil.SameFile(old, fi) {
		return
	}
	// A restart renamed the old file to runtime.prev.log and the new
	// instance writes a new one: the watch follows the inode, so it is
	// taken again on the path.
	_ = iw.w.Remove(path)
	if err := iw.w.Add(path); err != nil {
		delete(iw.files, path) // tried again at the next look
		return
	}
	iw.files[path] = fi
}

func (iw *inotifyWatcher) forget(path string) {
	if _, ok := iw.files[path]; ok {
		_ = iw.w.Remove(path)
		delete(iw.files, path)
	}
}

func (iw *inotifyWatcher) written() <-chan string { return iw.out }

func (iw *inotifyWatcher) close() {
	iw.cancel()
	iw.w.Close()
}
