// Package config loads svc-ctl's TOML configuration strictly and resolves it
// into Config: defaults applied, durations parsed (Go syntax plus "d" for
// days), relative paths made absolute against the config file's directory,
// time zones loaded from embedded tzdata, cron schedules checked.
//
// Every problem is reported with file, line and key, and all of them at
// once (an unknown key is an error, not a warning): see Error, Errors.
// The package also knows the per-OS default paths (DefaultStateDir,
// DefaultConfigPath, UserMode, Resolve), refuses a config that
// non-administrators can write when the agent is privileged
// (CheckPermissions), and renders a config for printing with every secret
// redacted by the one rule set of internal/redact (Config.Redacted).
//
// It must never: run a command or a shell, touch the network, create or
// change files (reading the config and its env_files, stat-ing them and
// looking up user and group names is all), fall back to a
// default when a written value is invalid (a bad zone is an error, never
// silent UTC), or put an env value or URL password into an error message.
// It sits at the bottom of the import graph. Of svc-ctl's rooms it imports
// only schedule (to check cron with the parser the agent runs: the one
// sideways arrow, which layering_test.go at the root allows by name), and
// the internal helpers redact and runas.
package config
