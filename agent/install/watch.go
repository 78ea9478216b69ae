package install

import (
	"context"
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

// waitNewer polls path until its mtime is after before, for at most limit.
// The mtime is what the run wrote: a clock on the wall would prove nothing.
func waitNewer(ctx context.Context, path string, before time.Time, limit time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := modTime(path); m.After(before) {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s was not updated within %s", path, limit)
		case <-tick.C:
		}
	}
}
