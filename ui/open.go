package ui

import (
	"fmt"

	"svcctl/internal/child"
)

// OpenBrowser asks the desktop to open url in the default browser
// (xdg-open, open, or the URL handler on Windows): argv only, never a
// shell. It returns once the opener started; the opener is reaped in the
// background.
func OpenBrowser(url string) error {
	argv := openerArgv(url)
	cmd := child.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the browser with %s: %w (open the URL by hand)", argv[0], err)
	}
	go cmd.Wait()
	return nil
}
