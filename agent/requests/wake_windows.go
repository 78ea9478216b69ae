//go:build windows

package requests

import (
	"context"

	"golang.org/x/sys/windows"

	"svcctl/config"
	"svcctl/control"
)

// osWakes creates the agent's wake event (control.EventName) and turns each
// time it is set into a wake, until ctx ends: Windows has no signal to
// carry a request.
func (s *Server) osWakes(ctx context.Context) <-chan struct{} {
	name, err := windows.UTF16PtrFromString(control.EventName(s.Paths, config.UserMode()))
	if err != nil {
		return nil
	}
	ev, err := windows.CreateEvent(control.EventAccess(), 0, 0, name) // auto-reset
	if err != nil {
		s.Log.Warn("request.event_failed", "err", err, "hint", "svc-ctl reload and svc-ctl run cannot reach this agent; restart it")
		return nil
	}
	stop, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(ev)
		return nil
	}
	out := make(chan struct{}, 1)
	s.Go("wake-event-stop", func() {
		<-ctx.Done()
		windows.SetEvent(stop)
	})
	s.Go("wake-event", func() {
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
	})
	return out
}
