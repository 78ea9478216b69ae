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
// check reads: per service, when its last cycle ran and what triggered it.
type lastFile struct {
	Services map[string]struct {
		Time    time.Time `json:"time"`
		Trigger string    `json:"trigger"`
	} `json:"services"`
}

// manualSince is the newest cycle in path triggered by a manual start (what
// `svc-ctl start --all` records) at or after since. ok is false when there
// is none; known is false when the file cannot be read as a lastFile.
func manualSince(path string, since time.Time) (at time.Time, ok, known bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, false, true
	}
	var lf lastFile
	if err := json.Unmarshal(b, &lf); err != nil {
		return time.Time{}, false, false
	}
	for _, s := range lf.Services {
		if s.Trigger == "manual" && !s.Time.Before(since) && s.Time.After(at) {
			at, ok = s.Time, true
		}
	}
	return at, ok, true
}

// waitEvidence polls watchdog.last.json until it shows a cycle of the
// backstop's run: a manual-triggered cycle at or after since. The agent's
// own cycles also update the file, so its mtime alone proves nothing while
// the agent runs; only when the file's format is unknown does an mtime after
// mtimeBefore count.
func waitEvidence(ctx context.Context, path string, since, mtimeBefore time.Time, limit time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		at, ok, known := manualSince(path, since)
		if ok {
			return at, nil
		}
		if m := modTime(path); !known && m.After(mtimeBefore) {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s shows no cycle of this run (trigger manual) within %s", path, limit)
		case <-tick.C:
		}
	}
}
