package probe

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// probeFile is healthy when s.Target exists and, if s.MaxAge is set, was
// modified at most MaxAge ago. A directory counts as existing.
func probeFile(ctx context.Context, s Spec) Result {
	if s.Target == "" {
		return unhealthy("no path to check")
	}
	return bounded(ctx, s, "the file system did not answer", func() Result { return statFile(s) })
}

func statFile(s Spec) Result {
	fi, err := os.Stat(s.Target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return unhealthy("file does not exist")
	case errors.Is(err, fs.ErrPermission):
		return unhealthy("file cannot be read by the agent: permission denied")
	case err != nil:
		return unhealthy("stat: %s", innerMessage(err))
	}
	mtime := fi.ModTime()
	age := now().Sub(mtime)
	d := map[string]any{
		"mtime": mtime.UTC().Format(time.RFC3339),
		"age_s": int64(age / time.Second),
		"size":  fi.Size(),
	}
	if s.MaxAge > 0 && age > s.MaxAge {
		r := unhealthy("file is %s old, want at most %s", fmtDur(age), fmtDur(s.MaxAge))
		r.Detail = d
		return r
	}
	return Result{Healthy: true, Detail: d}
}
