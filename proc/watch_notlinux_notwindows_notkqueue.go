//go:build !linux && !windows && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package proc

import (
	"errors"
	"fmt"
	"runtime"
)

// WatchExit is not supported on this platform: it returns an error wrapping
// errors.ErrUnsupported. Callers fall back to their periodic health cycle.
func WatchExit(id Identity) (<-chan struct{}, error) {
	return nil, fmt.Errorf("watch pid %d on %s: %w", id.PID, runtime.GOOS, errors.ErrUnsupported)
}
