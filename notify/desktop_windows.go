package notify

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"sync"

	"git.sr.ht/~jackmordaunt/go-toast/wintoast"
)

// toastAppID names svc-ctl in the Windows notification centre: registered
// once per user (HKCU\Software\Classes\AppUserModelId), as an unpackaged
// program must be for its toasts to show.
const toastAppID = "svc-ctl"

var toastRegister = sync.OnceValue(func() error {
	return wintoast.SetAppData(wintoast.AppData{AppID: toastAppID})
})

func desktopShow() (showFunc, error) { return showToast, nil }

// showToast pushes a toast through the Windows Runtime's COM interface
// (pure Go: no cgo, and never PowerShell — the fallback that library offers
// is not asked for).
func showToast(_ context.Context, title, body string, urgent bool) error {
	if err := toastRegister(); err != nil {
		return fmt.Errorf("desktop: register svc-ctl for toasts: %w", err)
	}
	if err := wintoast.Push(toastXML(title, body, urgent)); err != nil {
		return fmt.Errorf("desktop: show toast: %w", err)
	}
	return nil
}

// toastXML is the toast's content (ToastGeneric); urgent toasts stay until
// dismissed (scenario "reminder" needs an action, so a long duration it is).
func toastXML(title, body string, urgent bool) string {
	var b bytes.Buffer
	duration := "short"
	if urgent {
		duration = "long"
	}
	fmt.Fprintf(&b, `<toast duration="%s"><visual><binding template="ToastGeneric"><text>`, duration)
	xml.EscapeText(&b, []byte(title))
	b.WriteString(`</text><text>`)
	xml.EscapeText(&b, []byte(body))
	b.WriteString(`</text></binding></visual></toast>`)
	return b.String()
}
