//go:build !linux && !darwin && !windows

package config

import "path/filepath"

// DefaultStateDir on other systems (the BSDs and the like) follows Linux:
// /var/lib/svc-ctl, or $XDG_STATE_HOME/svc-ctl for a per-user agent.
func DefaultStateDir(user bool) string {
	if user {
		return xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state"))
	}
	return "/var/lib/svc-ctl"
}

// DefaultConfigPath on other systems follows Linux: /etc/svc-ctl/svc-ctl.toml,
// or $XDG_CONFIG_HOME/svc-ctl/svc-ctl.toml for a per-user agent.
func DefaultConfigPath(user bool) string {
	if user {
		return filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), FileName)
	}
	return filepath.Join("/etc/svc-ctl", FileName)
}

// osLogDestinations are the [agent] log_destinations this OS has.
var osLogDestinations = []string{LogFile}

const osName = "this OS"
