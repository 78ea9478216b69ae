//go:build !linux && !darwin

package notify

import (
	"errors"
	"runtime"
)

// desktopShow: no desktop notification door is built for this OS yet
// (Windows toasts are planned through WinRT, without PowerShell); the
// channel says so when it is opened instead of failing each event.
func desktopShow() (showFunc, error) {
	return nil, errors.New("desktop notifications are not available on " + runtime.GOOS +
		" in this svc-ctl: use an ntfy, webhook or command channel")
}
