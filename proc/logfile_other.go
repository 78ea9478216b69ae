//go:build !windows

package proc

import "os"

// openAppend opens a service's log for appending, creating it 0600. A Unix
// file can be renamed while open, so rotation needs nothing more.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
