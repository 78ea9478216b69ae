package config

import "path/filepath"

// DefaultStateDir is where the agent keeps its database, logs and locks:
// /var/lib/svc-ctl, or $XDG_STATE_HOME/svc-ctl (default
// ~/.local/state/svc-ctl) for a per-user agent.
func DefaultStateDir(user bool) string {
	if user {
		return xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state"))
	}
	return "/var/lib/svc-ctl"
}

// DefaultConfigPath is /etc/svc-ctl/svc-ctl.toml, or
// $XDG_CONFIG_HOME/svc-ctl/svc-ctl.toml (default ~/.config/...) for a
// per-user agent.
func DefaultConfigPath(user bool) string {
	if user {
		return filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), FileName)
	}
	return filepath.Join("/etc/svc-ctl", FileName)
}

// osLogDestinations are the [agent] log_destinations this OS has.
var osLogDestinations = []string{LogFile, LogJournal}

const osName = "Linux"
