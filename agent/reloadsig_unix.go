//go:build unix

package agent

import (
	"context"
	"fmt"
	"syscall"

	"svcctl/state"
)

// signalReload sends SIGHUP to the agent (cmd's signal handler turns it
// into a request on Options.Reload).
func signalReload(_ state.Paths, pid int) error {
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return fmt.Errorf("signal the agent (pid %d): %w", pid, err)
	}
	return nil
}

// osReloadRequests: on unix the requests come as SIGHUP, through
// Options.Reload; there is nothing more to listen to.
func (a *Agent) osReloadRequests(context.Context) <-chan struct{} { return nil }
