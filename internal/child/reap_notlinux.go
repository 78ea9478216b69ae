//go:build !linux

package child

import (
	"fmt"
	"os"
	"runtime"
)

// Subreaper: only Linux has child subreapers; elsewhere an orphan goes to
// the system's init (launchd on macOS), which reaps it.
func Subreaper() error {
	return fmt.Errorf("child subreaper on %s: %w", runtime.GOOS, ErrUnsupported)
}

// IsSubreaper is false where there is no subreaper.
func IsSubreaper() bool { return false }

// Sweep has nothing to reap where this process is no subreaper: its
// children are its Cmds, which Wait reaps.
func Sweep() []Orphan { return nil }

func notifyChild() (<-chan os.Signal, func()) { return nil, func() {} }
