package l2

import (
	"os"
	"runtime/debug"
	"strings"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/state"
)

// OpenCrashLog tells crashed, once, that the previous agent died of a fatal
// runtime error (when crash.log was written, its last lines), then installs
// crash.log for this process. The reported file moves to crash.prev.log:
// crash.log with content means "not reported yet".
func (n *Net) OpenCrashLog(p state.Paths, crashed func(at time.Time, tail []string)) bool {
	path := p.CrashLog()
	was := false
	// Lstat and fsutil: a crash.log link would copy the tail of any file
	// into agent.log; it is reported and replaced.
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		tail, _ := fsutil.TailLines(path, 40, 64<<10)
		n.Log.Error("agent.previous_crash", "crash_log", path, "at", st.ModTime().UTC(), "tail", strings.Join(tail, "\n"))
		crashed(st.ModTime().UTC(), tail)
		if err := os.Rename(path, p.CrashPrevLog()); err != nil {
			n.Log.Warn("crash_log.rotate_failed", "err", err)
		}
		was = true
	}
	f, err := fsutil.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fsutil.FilePerm)
	if err != nil {
		n.Log.Warn("crash_log.open_failed", "err", err)
		return was
	}
	if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
		n.Log.Warn("crash_log.set_failed", "err", err)
	}
	f.Close() // SetCrashOutput keeps its own duplicate
	return was
}
