//go:build !unix && !windows

package proc

import "os/exec"

// startDetached: this platform has no session or job to leave; the command
// is simply started.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	return cmd, cmd.Start()
}
