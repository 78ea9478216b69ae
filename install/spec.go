package install

import (
	"fmt"
	"path"
	"runtime"
	"strings"
	"time"

	"github.com/kardianos/service"

	"svcctl/state"
	"svcctl/winsvc"
)

const (
	// ServiceName is the agent's service name, launchd label and unit name.
	ServiceName = "svc-ctl"
	// BackstopName names the backstop's unit, task and label.
	BackstopName = "svc-ctl-backstop"
	// The state dir's files this package names in definitions it renders
	// for any OS (so joined for the target OS, not with state.Paths).
	watchdogLast = state.WatchdogLastFile
	stdioLog     = state.StdioLogFile
	backstopLog  = state.BackstopLogFile
)

// Spec is everything the generated files depend on. It is plain data: the
// same Spec renders the same bytes on every OS.
type Spec struct {
	Exe          string        // absolute path of the svc-ctl binary the service runs
	ConfigPath   string        // absolute path of the config file
	StateDir     string        // the config's agent.state_dir
	DrainTimeout time.Duration // the config's agent.drain_timeout
	User         bool          // per-user service (--user) instead of a system service
	Home         string        // the user's home directory (user-scope paths)
	UID          int           // the user's uid (launchd's gui/UID domain)
	UserID       string        // Windows DOMAIN\user for a per-user backstop task
}

// Target is where the files are for: an OS and its init system, named as
// kardianos names it (service.Platform()): linux-systemd, unix-systemv,
// linux-openrc, linux-upstart, linux-rcs, linux-procd, darwin-launchd,
// windows-service.
type Target struct {
	GOOS     string
	Platform string
}

// CurrentTarget is this host: what kardianos detected.
func CurrentTarget() Target {
	return Target{GOOS: runtime.GOOS, Platform: service.Platform()}
}

// StopTimeout is how long the OS waits for the agent to stop before it kills
// it: drain_timeout plus a margin, so a drain is never cut short.
func (s Spec) StopTimeout() time.Duration { return s.DrainTimeout + winsvc.StopMargin }

// Scope is "user" or "system", as the messages say it.
func (s Spec) Scope() string {
	if s.User {
		return "user"
	}
	return "system"
}

// Mode is the --mode the generated definitions pass to `svc-ctl agent`.
func (s Spec) Mode() Mode {
	if s.User {
		return ModeUserService
	}
	return ModeService
}

// AgentArgs are the arguments the service runs the agent with: --managed
// says the OS service manager runs it (an agent without it is a person's,
// whatever its session), and --mode records which kind.
func (s Spec) AgentArgs() []string {
	return []string{"agent", "--managed", "--config", s.ConfigPath, "--mode", string(s.Mode())}
}

// BackstopArgs are the arguments the backstop runs svc-ctl with. --scheduled:
// it acts as the watchdog does, so a pause a person set (`svc-ctl stop`),
// backoff and given-up are respected; a manual start would override them.
func (s Spec) BackstopArgs() []string {
	return []string{"start", "--all", "--scheduled", "--config", s.ConfigPath}
}

func (s Spec) stdioLogPath(goos string) string {
	if goos == "windows" {
		return s.StateDir + `\` + stdioLog
	}
	return path.Join(s.StateDir, stdioLog)
}

// validate refuses what no generated file can carry safely. Each format
// refuses more where it must (see the quote helpers).
func (s Spec) validate() error {
	for _, f := range []struct{ key, val string }{
		{"the svc-ctl binary path", s.Exe},
		{"the config path", s.ConfigPath},
		{"agent.state_dir", s.StateDir},
	} {
		if f.val == "" {
			return fmt.Errorf("%s is empty", f.key)
		}
		if strings.ContainsAny(f.val, "\n\r\x00") {
			return fmt.Errorf("%s %q contains a line break: no service definition can carry it; move the file", f.key, f.val)
		}
		// kardianos renders custom definitions as templates: "{{" would be read as one.
		if strings.Contains(f.val, "{{") || strings.Contains(f.val, "}}") {
			return fmt.Errorf("%s %q contains \"{{\" or \"}}\", which the service definition would read as a template: move the file", f.key, f.val)
		}
	}
	if s.DrainTimeout < 0 {
		return fmt.Errorf("agent.drain_timeout %s is negative", s.DrainTimeout)
	}
	return nil
}
