package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// modTime is path's mtime, zero when it does not exist.
func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// lastFile is the part of watchdog.last.json (agent.LastFile) the backstop
// check reads: per service, when its last cycle ran.
type lastFile struct {
	Services map[string]struct {
		Time time.Time `json:"time"`
	} `json:"services"`
}

// cycledSince reports whether every named service has a cycle at or after
// since in path, and the newest of those cycles. known is false when the file
// cannot be read as a lastFile.
func cycledSince(path string, names []string, since time.Time) (at time.Time, ok, known bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false, true
	}
	var lf lastFile
	if err := json.Unmarshal(b, &lf); err != nil {
		return time.Time{}, false, false
	}
	for _, n := range names {
		s, found := lf.Services[n]
		if !found || s.Time.Before(since) {
			return time.Time{}, false, true
		}
		if s.Time.After(at) {
			at = s.Time
		}
	}
	return at, len(names) > 0, true
}

// waitEvidence polls watchdog.last.json until every configured service shows
// a cycle at or after since: what one `svc-ctl start --all` writes. The
// agent's own cycles update the file too, but one service at a time on its
// own interval, so all of them within the wait is the backstop's run. With no
// names, or a file whose format is unknown, an mtime after mtimeBefore counts.
func waitEvidence(ctx context.Context, path string, names []string, since, mtimeBefore time.Time, limit time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		at, ok, known := cycledSince(path, names, since)
		if ok {
			return at, nil
		}
		if m := modTime(path); (!known || len(names) == 0) && m.After(mtimeBefore) {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s shows no cycle of every service (%d) since the run started, within %s", path, len(names), limit)
		case <-tick.C:
		}
	}
}
