// Package runas resolves the `user` and `group` of a service or job into the
// numeric identity a process is started with: uid, primary gid,
// supplementary groups and home directory. config uses it to refuse an
// unknown name at load time; the spawn of services, jobs and exec probes uses
// it again at start (a user may have changed since).
//
// It only reads the user and group databases. It never changes the identity
// of the calling process, and it does not decide who may ask for an identity:
// that a per-user agent refuses `user` is config's rule.
package runas

import (
	"errors"
	"fmt"
)

// Identity is who a process runs as.
type Identity struct {
	Username string   // as in the user database ("" when only a group was asked for)
	UID      uint32   // the agent's own uid when only a group was asked for
	GID      uint32   // the group asked for, else the user's primary group
	Groups   []uint32 // supplementary groups: the user's, or just GID
	Home     string   // the user's home directory ("" when only a group was asked for)
}

// ErrUnsupported is returned where processes cannot be started as another
// user by svc-ctl (Windows, for now).
var ErrUnsupported = errors.New("running a service as another user is not supported on this OS yet")

// ErrUnknown marks a user or group name (or id) the system does not know.
var ErrUnknown = errors.New("unknown")

// Supported reports whether Lookup can work on this OS.
func Supported() bool { return supported }

// UnknownUser is the error for a user the system does not know.
func UnknownUser(name string) error {
	return fmt.Errorf("%w user %q: create it, or name an existing user or uid", ErrUnknown, name)
}

// UnknownGroup is the error for a group the system does not know.
func UnknownGroup(name string) error {
	return fmt.Errorf("%w group %q: create it, or name an existing group or gid", ErrUnknown, name)
}
