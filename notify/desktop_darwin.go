package notify

import (
	"context"
	"fmt"
	"strings"

	"svcctl/internal/child"
)

// osascript is the notification centre's door for a program without an app
// bundle. The title and text are passed as arguments of the script, never
// spliced into it, so no text can change what runs.
var osascript = "/usr/bin/osascript"

func desktopShow() (showFunc, error) { return showMac, nil }

func showMac(ctx context.Context, title, body string, _ bool) error {
	cmd := child.CommandContext(ctx, osascript,
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run", title, body)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("desktop: osascript: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
