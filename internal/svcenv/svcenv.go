// Package svcenv builds the environment of every process svc-ctl starts for
// a service, a job or an exec probe: a documented base environment, then the
// env_file's variables, then env's (config merges those two into
// Service.Env / Job.Env). The result is the same whoever starts it — the
// agent at boot or a person running `svc-ctl start` from a shell — because
// nothing is taken from the caller's environment. Otherwise a
// service that worked when started by hand (with the person's
// PATH, proxy and pyenv shims) failed after the next reboot.
//
// The base, per OS (docs/configuration.md, "The environment a service
// gets"):
//   - Linux: PATH as systemd gives services
//     (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin), LANG
//     from /etc/locale.conf or /etc/default/locale (else C.UTF-8); for a
//     per-user agent XDG_RUNTIME_DIR and DBUS_SESSION_BUS_ADDRESS when the
//     user's runtime directory and bus exist.
//   - macOS: PATH as launchd gives daemons (/usr/bin:/bin:/usr/sbin:/sbin).
//   - Unix: HOME, USER and LOGNAME of the user the process runs as (the
//     service's `user`, else the agent's).
//   - Windows: the system environment block (what the SCM gives a service:
//     Path, SystemRoot, ComSpec, PATHEXT, ...), without any user's variables.
//
// It never reads the calling process's environment (os.Environ) for a
// value.
package svcenv

import (
	"maps"
	"slices"
	"strings"

	"svcctl/internal/runas"
)

// Build returns the base environment for id (nil: the agent's own user)
// with env on top, as KEY=VALUE, sorted. A key of env replaces the base's.
func Build(id *runas.Identity, env map[string]string) []string {
	m := Base(id)
	maps.Copy(m, env)
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// Names returns the sorted variable names Build would give.
func Names(id *runas.Identity, env map[string]string) []string {
	m := Base(id)
	maps.Copy(m, env)
	return slices.Sorted(maps.Keys(m))
}

// Base returns the base environment for id (nil: the agent's own user).
func Base(id *runas.Identity) map[string]string {
	return base(id)
}

// localeFrom reads LANG=... from a locale file's lines.
func localeFrom(data string) string {
	for _, l := range strings.Split(data, "\n") {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "LANG="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// PathOf returns the PATH of env (KEY=VALUE lines as Build gives them).
func PathOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return ""
}
