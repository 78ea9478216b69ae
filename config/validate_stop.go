package config

import (
	"runtime"
	"slices"
	"strings"
)

// Kill modes (Service.KillMode).
const (
	KillTree = "tree" // the stop signal to every process of the instance
	KillMain = "main" // to its main process only; SIGKILL for the rest at stop_timeout
)

// UnixStopSignals are the stop_signal values accepted on Linux and macOS:
// the signals servers document as their stop (SIGTERM; SIGINT and SIGQUIT
// for databases' fast and immediate shutdowns; SIGHUP, SIGUSR1, SIGUSR2 and
// SIGWINCH for the graceful stops of some web servers), and SIGKILL.
var UnixStopSignals = []string{"SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGWINCH", "SIGKILL"}

// WindowsStopSignal is the one stop_signal accepted on Windows: CTRL_BREAK
// to the service's console process group.
const WindowsStopSignal = "SIGBREAK"

// stopOS is the OS whose stop rules apply (tests set "windows").
var stopOS = runtime.GOOS

// stop validates how the service at p is stopped: stop_signal, kill_mode,
// stop_command and pid_file.
func (c *checker) stop(p string, r *rawService, s *Service) {
	windows := stopOS == "windows"
	s.StopSignal, s.KillMode = r.StopSignal, r.KillMode
	switch {
	case r.StopSignal == "":
	case windows && r.StopSignal != WindowsStopSignal:
		c.fail(p+".stop_signal", "%q is not used on Windows: the only stop signal there is %q (CTRL_BREAK to the service's console); without one the job object is terminated",
			r.StopSignal, WindowsStopSignal)
	case !windows && !slices.Contains(UnixStopSignals, r.StopSignal):
		c.fail(p+".stop_signal", "invalid value %q: use one of %s", r.StopSignal, strings.Join(UnixStopSignals, ", "))
	}
	switch r.KillMode {
	case "":
		s.KillMode = defaultKillMode
	case KillTree:
	case KillMain:
		if windows {
			c.fail(p+".kill_mode", `"main" is not used on Windows: the job object is stopped as a whole; remove kill_mode`)
		}
	default:
		c.fail(p+".kill_mode", `invalid value %q: use "tree" (the stop signal to every process, the default) or "main" (to the main process only)`, r.KillMode)
	}
	if c.doc.has(p + ".stop_command") {
		c.command(p+".stop_command", r.StopCommand, "")
		s.StopCommand = r.StopCommand
	}
	if r.PidFile != "" {
		if windows {
			c.fail(p+".pid_file", "not used on Windows: the job object owns every process of the instance; remove pid_file")
			return
		}
		s.PidFile = c.path(p+".pid_file", r.PidFile)
	}
}
