//go:build windows

package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"svcctl/config"
	"svcctl/state"
)

// Windows has no SIGHUP: the agent waits on a named event of its own,
// Global\svc-ctl-reload-<hash of the state dir> (Local\ for a per-user
// agent), and `svc-ctl reload` sets it. Only SYSTEM and administrators may
// set the event of a system agent: the default access of an object a
// service creates in the Global namespace.

func reloadEventName(p state.Paths, user bool) string {
	sum := sha256.Sum256([]byte(strings.ToLower(p.State)))
	ns := `Global\`
	if user {
		ns = `Local\`
	}
	return ns + "svc-ctl-reload-" + hex.EncodeToString(sum[:8])
}

func signalReload(p state.Paths, pid int) error {
	var last error
	for _, user := range []bool{config.UserMode(), !config.UserMode()} {
		name, err := windows.UTF16PtrFromString(reloadEventName(p, user))
		if err != nil {
			return err
		}
		h, err := windows.OpenEvent(windows.EVENT_MODIFY_STATE, false, name)
		if err != nil {
			last = err
			continue
		}
		defer windows.CloseHandle(h)
		if err := windows.SetEvent(h); err != nil {
			return fmt.Errorf("signal the agent (pid %d): %w", pid, err)
		}
		return nil
	}
	return fmt.Errorf("open the agent's reload event (pid %d): %w", pid, last)
}

// reloadEventAccess is who may set a system agent's event: SYSTEM and the
// Administrators group, stated rather than left to the service token's
// default access list. A per-user agent's is its user's (nil: the default).
func reloadEventAccess() *windows.SecurityAttributes {
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

// osReloadRequests creates the agent's reload event and turns each time it
// is set into a request, until ctx ends.
func (a *Agent) osReloadRequests(ctx context.Context) <-chan struct{} {
	name, err := windows.UTF16PtrFromString(reloadEventName(a.paths, config.UserMode()))
	if err != nil {
		return nil
	}
	ev, err := windows.CreateEvent(reloadEventAccess(), 0, 0, name) // auto-reset
	if err != nil {
		a.log.Warn("reload.event_failed", "err", err, "hint", "svc-ctl reload cannot reach this agent; restart it to apply a new config")
		return nil
	}
	stop, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(ev)
		return nil
	}
	out := make(chan struct{}, 1)
	a.goOnce("reload-event-stop", func() {
		<-ctx.Done()
		windows.SetEvent(stop)
	}, nil)
	a.goOnce("reload-event", func() {
		defer windows.CloseHandle(ev)
		defer windows.CloseHandle(stop)
		for {
			r, err := windows.WaitForMultipleObjects([]windows.Handle{ev, stop}, false, windows.INFINITE)
			if err != nil || r != windows.WAIT_OBJECT_0 {
				return
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}, nil)
	return out
}
