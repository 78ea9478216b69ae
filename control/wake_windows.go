//go:build windows

package control

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"svcctl/config"
	"svcctl/state"
)

// Windows has no SIGHUP: the agent waits on a named event of its own,
// Global\svc-ctl-wake-<hash of the state dir> (Local\ for a per-user
// agent), and a request sets it. Only SYSTEM and administrators may set the
// event of a system agent (EventAccess).

// No signal carries a request on Windows: the event does.
var ReloadSignal, RequestSignal os.Signal

// EventName is the name of the wake event of the agent of p.
func EventName(p state.Paths, user bool) string {
	sum := sha256.Sum256([]byte(strings.ToLower(p.State)))
	ns := `Global\`
	if user {
		ns = `Local\`
	}
	return ns + "svc-ctl-wake-" + hex.EncodeToString(sum[:8])
}

// Wake sets the agent's event. The system agent's namespace is tried first
// for a privileged command, the per-user one first otherwise.
func Wake(p state.Paths, pid int, _ Kind) error {
	var last error
	for _, user := range []bool{config.UserMode(), !config.UserMode()} {
		name, err := windows.UTF16PtrFromString(EventName(p, user))
		if err != nil {
			return err
		}
		h, err := windows.OpenEvent(windows.EVENT_MODIFY_STATE, false, name)
		if err != nil {
			last = err
			continue
		}
		err = windows.SetEvent(h)
		windows.CloseHandle(h)
		if err != nil {
			return fmt.Errorf("wake the agent (pid %d): %w", pid, err)
		}
		return nil
	}
	return fmt.Errorf("open the agent's wake event (pid %d): %w", pid, last)
}

// EventAccess is who may set a system agent's event: SYSTEM and the
// Administrators group, stated rather than left to the service token's
// default access list. A per-user agent's is its user's (nil: the default).
func EventAccess() *windows.SecurityAttributes {
	if config.UserMode() {
		return nil
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;SY)(A;;GA;;;BA)")
	if err != nil {
		return nil
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa
}
