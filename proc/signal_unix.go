//go:build unix

package proc

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// StopSignals are the stop_signal values svc-ctl accepts on unix: the
// signals servers document as "stop" (SIGTERM; SIGINT and SIGQUIT for
// databases' fast and immediate shutdowns; SIGHUP, SIGUSR1, SIGUSR2,
// SIGWINCH for graceful stops of some web servers), and SIGKILL.
var StopSignals = []string{"SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGWINCH", "SIGKILL"}

func signalNamed(name string) (unix.Signal, error) {
	for _, s := range StopSignals {
		if s == name {
			return unix.SignalNum(name), nil
		}
	}
	return 0, fmt.Errorf("stop signal %q: not one of %s", name, strings.Join(StopSignals, ", "))
}
