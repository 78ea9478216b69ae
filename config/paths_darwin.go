package config

import "path/filepath"

// DefaultStateDir is /Library/Application Support/svc-ctl, or
// ~/Library/Application Support/svc-ctl for a per-user agent.
func DefaultStateDir(user bool) string {
	if user {
		return filepath.Join(homeDir(), "Library", "Application Support", "svc-ctl")
	}
	return "/Library/Application Support/svc-ctl"
}

// DefaultConfigPath is svc-ctl.toml in the state directory: macOS keeps an
// application's settings and data under Application Support together.
func DefaultConfigPath(user bool) string {
	return filepath.Join(DefaultStateDir(user), FileName)
}

// osLogDestinations are the [agent] log_destinations this OS has: the
// unified log has no interface that a program without cgo can write to,
// so the agent's log is agent.log (docs/configuration.md says where).
var osLogDestinations = []string{LogFile}

const osName = "macOS"
