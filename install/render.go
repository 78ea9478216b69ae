package install

import (
	"fmt"
	"path"

	"svcctl/winsvc"
)

// Unit is the agent's service definition for one target, rendered.
type Unit struct {
	Target Target
	// Path is where the definition lives ("" on Windows: the SCM's registry).
	Path string
	// Content is the file as kardianos will write it, byte for byte; on
	// Windows a description of the SCM settings. "" when the target's
	// kardianos default is used (upstart, rc.d, procd).
	Content string
	// Option is the kardianos option Content is passed in ("SystemdScript",
	// "SysvScript", "OpenRCScript", "LaunchdConfig"), "" for none.
	Option string
	// Tuned is false where the init system's defaults apply: its stop timeout
	// may be shorter than drain_timeout and it may kill supervised services
	// with the agent. Install says so.
	Tuned bool
	// CommandLine is the agent's command line as the SCM stores it (Windows).
	CommandLine string
	// Windows holds the SCM settings applied after creation (Windows only).
	Windows *winsvc.Settings
}

// RenderUnit renders the agent's service definition for t. It is a pure
// function of s and t.
func RenderUnit(s Spec, t Target) (Unit, error) {
	if err := s.validate(); err != nil {
		return Unit{}, err
	}
	u := Unit{Target: t, Path: unitPath(s, t), Tuned: true}
	var err error
	switch t.Platform {
	case "linux-systemd":
		u.Option, u.Content = "SystemdScript", renderSystemdUnit(s)
	case "unix-systemv":
		err = needSystem(s, t)
		u.Option, u.Content = "SysvScript", renderSysv(s)
	case "linux-openrc":
		err = needSystem(s, t)
		u.Option = "OpenRCScript"
		if err == nil {
			u.Content, err = renderOpenRC(s)
		}
	case "linux-upstart", "linux-rcs", "linux-procd":
		err = needSystem(s, t)
		u.Tuned = false
	case "darwin-launchd":
		u.Option, u.Content = "LaunchdConfig", renderLaunchdAgent(s)
	case "windows-service":
		if s.User {
			err = fmt.Errorf("--user: Windows has no per-user services; run `svc-ctl install` from an elevated prompt (the agent then runs as LocalSystem)")
		}
		set := winsvc.DefaultSettings(s.DrainTimeout)
		u.Windows = &set
		u.CommandLine = winsvc.CommandLine(s.Exe, s.AgentArgs()...)
		u.Content = renderSCM(u.CommandLine, set)
	default:
		err = fmt.Errorf("no service manager svc-ctl can install into was found (kardianos reports %q)", t.Platform)
	}
	if err != nil {
		return Unit{}, err
	}
	return u, nil
}

// needSystem refuses --user where the init system has no per-user services.
func needSystem(s Spec, t Target) error {
	if s.User {
		return fmt.Errorf("--user: per-user services need systemd (systemctl --user) and this host uses %s; install the system service as root instead", t.Platform)
	}
	return nil
}

// scopeSupported says whether t has services of s's scope at all.
func scopeSupported(s Spec, t Target) error {
	switch {
	case !s.User, t.Platform == "linux-systemd", t.Platform == "darwin-launchd":
		return nil
	case t.Platform == "windows-service":
		return fmt.Errorf("--user: Windows has no per-user services")
	}
	return needSystem(s, t)
}

// unitPath is where the target keeps the agent's definition, as kardianos
// computes it ("" on Windows).
func unitPath(s Spec, t Target) string {
	switch t.Platform {
	case "linux-systemd":
		return systemdUnitPath(s, ServiceName+".service")
	case "linux-upstart":
		return "/etc/init/" + ServiceName + ".conf"
	case "darwin-launchd":
		return launchdPath(s, ServiceName)
	case "windows-service":
		return ""
	}
	return "/etc/init.d/" + ServiceName
}

// systemdUnitPath is where kardianos puts a unit (and we put the backstop's).
func systemdUnitPath(s Spec, name string) string {
	if s.User {
		return path.Join(s.Home, ".config/systemd/user", name)
	}
	return path.Join("/etc/systemd/system", name)
}

// launchdPath: a LaunchAgent (per user, at login) or a LaunchDaemon (at boot).
func launchdPath(s Spec, label string) string {
	if s.User {
		return path.Join(s.Home, "Library/LaunchAgents", label+".plist")
	}
	return path.Join("/Library/LaunchDaemons", label+".plist")
}

func renderSCM(cmdline string, set winsvc.Settings) string {
	return fmt.Sprintf("service: %s\ndisplay name: %s\ncommand line: %s\nstart type: automatic\naccepts: stop, shutdown, preshutdown\n%s",
		ServiceName, displayName, cmdline, set.String())
}

const (
	displayName = "svc-ctl agent"
	description = "svc-ctl agent: keeps this host's background services alive and records every failure"
)
