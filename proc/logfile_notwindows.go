//go:build !windows

package proc

import (
	"os"

	"svcctl/internal/fsutil"
	"svcctl/internal/runas"
)

// openAppend opens a service's log for appending, creating it 0600, without
// following a symbolic link and only if it is a regular file. A Unix file
// can be renamed while open, so rotation needs nothing more.
func openAppend(path string) (*os.File, error) {
	return fsutil.OpenAppend(path)
}

// ShareLog lets a service run as another user read its own log: group id's
// primary group, mode 0640; the owner stays the agent's user, so the
// service cannot rewrite the evidence other than by appending through its
// descriptor.
func ShareLog(f *os.File, id *runas.Identity) error {
	if id == nil {
		return nil
	}
	if err := f.Chown(-1, int(id.GID)); err != nil {
		return err
	}
	return f.Chmod(0o640)
}
