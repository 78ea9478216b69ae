//go:build unix

package control

import (
	"fmt"
	"os"
	"syscall"

	"svcctl/state"
)

// On unix a request wakes the agent with a signal: SIGHUP for a reload (what
// `kill -HUP` has always meant to it), SIGUSR1 for every other kind. The
// agent's main turns each into a wake (cmd/svc-ctl, untilSecondSignal).
var (
	ReloadSignal  os.Signal = syscall.SIGHUP
	RequestSignal os.Signal = syscall.SIGUSR1
)

// Wake signals the agent (pid) that a request of kind waits for it.
func Wake(_ state.Paths, pid int, kind Kind) error {
	sig := syscall.SIGUSR1
	if kind == KindReload {
		sig = syscall.SIGHUP
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("wake the agent (pid %d): %w", pid, err)
	}
	return nil
}
