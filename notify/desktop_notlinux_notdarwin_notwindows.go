//go:build !linux && !darwin && !windows

package notify

import (
	"errors"
	"runtime"
)

// desktopShow: there is no desktop notification door on this OS (BSDs
// without D-Bus wiring, plan9 ...); the channel says so when it is opened
// instead of failing each event.
func desktopShow() (showFunc, error) {
	return nil, errors.New("desktop notifications are not available on " + runtime.GOOS +
		" in this svc-ctl: use an ntfy, webhook or command channel")
}
