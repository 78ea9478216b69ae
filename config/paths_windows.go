package config

import (
	"os"
	"path/filepath"
)

// DefaultStateDir is %ProgramData%\svc-ctl, or %LOCALAPPDATA%\svc-ctl for a
// per-user agent.
func DefaultStateDir(user bool) string {
	if user {
		base := os.Getenv("LOCALAPPDATA")
		if base == "" {
			base = filepath.Join(homeDir(), "AppData", "Local")
		}
		return filepath.Join(base, "svc-ctl")
	}
	base := os.Getenv("ProgramData")
	if base == "" {
		base = `C:\ProgramData`
	}
	return filepath.Join(base, "svc-ctl")
}

// DefaultConfigPath is svc-ctl.toml in the state directory.
func DefaultConfigPath(user bool) string {
	return filepath.Join(DefaultStateDir(user), FileName)
}

// osLogDestinations are the [agent] log_destinations this OS has.
var osLogDestinations = []string{LogFile, LogEventLog}

const osName = "Windows"
