package notify

import (
	"context"

	"svcctl/config"
)

// desktop shows the event on the screen of the person logged in: Linux
// through the freedesktop Notifications service on the session D-Bus
// (desktop_linux.go), macOS through the notification centre
// (desktop_darwin.go), Windows as a toast through the Windows Runtime
// (desktop_windows.go). Only a per-user agent has a desktop session; config
// refuses the kind in a system config.
type desktop struct{ show showFunc }

// showFunc puts one notification on the screen; urgent ones stay until
// dismissed where the desktop allows it.
type showFunc func(ctx context.Context, title, body string, urgent bool) error

func openDesktop(*config.Notify) (Channel, error) {
	show, err := desktopShow()
	if err != nil {
		return nil, err
	}
	return &desktop{show: show}, nil
}

func (d *desktop) Send(ctx context.Context, e *Event) error {
	body := e.Text()
	if e.Detail != "" {
		body += "\n" + e.Detail
	}
	return d.show(ctx, e.Title(), body, e.High())
}
