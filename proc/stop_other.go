//go:build !unix && !windows

package proc

import (
	"errors"
	"fmt"
	"runtime"
)

// openTarget: this platform has no way here to signal a process by PID.
func openTarget(Identity) (stopTarget, error) {
	return nil, fmt.Errorf("stop on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
