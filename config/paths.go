package config

import (
	"fmt"
	"os"
	"path/filepath"

	"svcctl/internal/fsutil"
)

// FileName is the config file's name in the platform config directory.
const FileName = "svc-ctl.toml"

// EnvConfig names the environment variable that points at the config file
// when no --config flag is given.
const EnvConfig = "SVC_CTL_CONFIG"

// Where Resolve found the config path.
const (
	SourceFlag    = "--config"
	SourceEnv     = "$" + EnvConfig
	SourceDefault = "default"
)

// Resolve picks the config file: the --config flag value, else
// $SVC_CTL_CONFIG, else DefaultConfigPath(UserMode()). The path is made
// absolute (the agent runs as a service whose working directory is not the
// person's); source is SourceFlag, SourceEnv or SourceDefault, for messages
// like "config /etc/svc-ctl/svc-ctl.toml (default)".
func Resolve(flagValue string) (path, source string, err error) {
	switch env := os.Getenv(EnvConfig); {
	case flagValue != "":
		path, source = flagValue, SourceFlag
	case env != "":
		path, source = env, SourceEnv
	default:
		path, source = DefaultConfigPath(UserMode()), SourceDefault
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", source, fmt.Errorf("resolve config path %s (from %s): %w", path, source, err)
	}
	return abs, source, nil
}

// homeDir is the user's home, or the temp dir when there is none (a
// service account without a profile): a writable place beats a relative
// path that depends on the working directory.
func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h
	}
	return os.TempDir()
}

// xdgDir is $<envVar>/svc-ctl, or ~/<fallback>/svc-ctl when the variable is
// unset or relative (the XDG spec says to ignore relative values).
func xdgDir(envVar, fallback string) string {
	if v := os.Getenv(envVar); filepath.IsAbs(v) {
		return filepath.Join(v, "svc-ctl")
	}
	return filepath.Join(homeDir(), fallback, "svc-ctl")
}

// Canonical is path with the symbolic links resolved that only an
// administrator could have made and could change (macOS's /var ->
// /private/var, Debian's /var/run -> /run; for a per-user svc-ctl, also its
// own user's links): fsutil.Canonical. Config applies it once, at load, to
// the state dir and to every service's log, so that what the agent pins
// later (the log's directory, opened without following any link) is the
// path a person reads in `config check`. A link anyone else could change
// stays as written, and the agent refuses it when it pins the directory.
func Canonical(path string) string {
	if UserMode() {
		return fsutil.Canonical(path, os.Geteuid())
	}
	return fsutil.Canonical(path)
}
