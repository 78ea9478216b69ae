package notify

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
)

// The freedesktop Desktop Notifications Specification, version 1.2.
const (
	fdoName   = "org.freedesktop.Notifications"
	fdoPath   = "/org/freedesktop/Notifications"
	fdoNotify = fdoName + ".Notify"
)

// sessionBus is the session bus address: DBUS_SESSION_BUS_ADDRESS, as a
// per-user systemd service and a desktop session set it. A variable so that
// tests can point it at a private dbus-daemon.
var sessionBus = func() string { return os.Getenv("DBUS_SESSION_BUS_ADDRESS") }

func desktopShow() (showFunc, error) { return showDBus, nil }

// showDBus connects for each message (they are rare; a held connection
// would die with a logout anyway) and calls Notify.
func showDBus(ctx context.Context, title, body string, urgent bool) error {
	addr := sessionBus()
	if addr == "" {
		// godbus would fall back to /run/user/UID/bus; say what is missing instead.
		return errors.New("desktop: no session bus (DBUS_SESSION_BUS_ADDRESS is not set): " +
			"run the agent as a per-user service of the logged-in user (svc-ctl install --user)")
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("desktop: connect to the session bus: %w", err)
	}
	defer conn.Close()
	urgency := byte(1) // normal
	if urgent {
		urgency = 2 // critical: stays until dismissed
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(urgency), "category": dbus.MakeVariant("svc-ctl")}
	var id uint32
	call := conn.Object(fdoName, fdoPath).CallWithContext(ctx, fdoNotify, 0,
		"svc-ctl", uint32(0), "dialog-warning", title, body, []string{}, hints, int32(-1))
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("desktop: %s: %w", fdoNotify, err)
	}
	return nil
}
