package ui

import (
	"fmt"

	"svcctl/internal/child"
)

// openAs asks the desktop to open target (a URL, or a file the browser
// opens) in the default browser (xdg-open, open, or the URL handler on
// Windows), as who (nil: this process's user, in its environment): argv
// only, never a shell. It returns once the opener started; the opener is
// reaped in the background. `ui --open` gives it a redirect file (OpenPage),
// never the page's URL: the token must not be in any process's argv.
func openAs(target string, who *invoker) error {
	argv := openerArgv(target)
	cmd := child.Command(argv[0], argv[1:]...)
	who.apply(cmd.Cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open the browser with %s: %w (open the URL by hand)", argv[0], err)
	}
	go cmd.Wait()
	return nil
}
