// Package svcenv is the one environment rule of every process svc-ctl
// starts as a service, a job, an exec health check or a command channel
// (and `svc-ctl exec` with a job's `user`): a documented base environment
// of the user it runs as (HOME, USER, LOGNAME, the base PATH), then the
// env_file's variables, then env's (config merges those two into
// Service.Env / Job.Env); search_path's directories before the PATH; bare
// program names looked up in that PATH; the working directory `dir`, else
// the user's home. The result is the same whoever starts it — the agent at
// boot or a person running `svc-ctl start` from a shell — because nothing
// is taken from the caller's environment: a service that worked when
// started by hand (with the person's PATH, proxy and pyenv shims) must not
// fail after the next reboot, and a root caller's secrets must not reach a
// process that runs as another user.
//
// The base, per OS (docs/configuration.md, "The environment a service
// gets"):
//   - Linux: PATH as systemd gives services
//     (/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin), LANG
//     from /etc/locale.conf or /etc/default/locale (else C.UTF-8); for a
//     per-user agent XDG_RUNTIME_DIR and DBUS_SESSION_BUS_ADDRESS when the
//     user's runtime directory and bus exist.
//   - macOS: PATH as launchd gives daemons (/usr/bin:/bin:/usr/sbin:/sbin);
//     a per-user agent's PATH starts with Homebrew's prefixes
//     (/opt/homebrew/bin, /opt/homebrew/sbin, /usr/local/bin), where a
//     person's programs are; a root agent's never does (a user may own
//     them).
//   - Unix: HOME, USER and LOGNAME of the user the process runs as (the
//     service's `user`, else the agent's).
//   - Windows: the system environment block (what the SCM gives a service:
//     Path, SystemRoot, ComSpec, PATHEXT, ...), without any user's variables.
//
// It never takes a value a process gets from the calling process's
// environment. The caller's PATH is read for one thing only: a program the
// process's PATH does not find is looked up there too, so that the error
// says where the person's shell finds it and what to write.
package svcenv

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"svcctl/internal/runas"
)

// Process is what one process svc-ctl starts for a service, a job, a check
// or a channel is started with; its zero value is the agent's own user in
// the base environment.
type Process struct {
	RunAs      *runas.Identity   // who it runs as; nil: the agent's own user
	Env        map[string]string // env_file overlaid by env (config merged them)
	SearchPath []string          // search_path: absolute directories put before the PATH
	Dir        string            // dir; "": the user's home (WorkDir)
}

// Environ is the process's environment, KEY=VALUE, sorted by name: the
// base of its user, env on top (a key of env replaces the base's), and
// search_path's directories before the PATH that gives.
func (p Process) Environ() []string {
	m := Base(p.RunAs)
	maps.Copy(m, p.Env)
	if len(p.SearchPath) > 0 {
		k := pathKey(m)
		parts := append(slices.Clone(p.SearchPath), m[k])
		m[k] = strings.Join(parts, string(filepath.ListSeparator))
	}
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// WorkDir is the process's working directory: dir, else the home of the
// user it runs as (root: "/"; a home that does not exist: "/"; Windows:
// the system directory), never the directory the caller happens to be in.
func (p Process) WorkDir() string {
	if p.Dir != "" {
		return p.Dir
	}
	return defaultDir(p.RunAs)
}

// LookPath finds name as the process will: a bare program name in the
// PATH of its environment (Environ), never the caller's; a name with a
// separator is returned as it is. A bare name that PATH does not hold is a
// *NotFoundError, which says which PATH was searched and where the
// caller's own PATH finds the program.
func (p Process) LookPath(name string) (string, error) {
	return LookPath(name, p.Environ())
}

// Build returns the base environment for id (nil: the agent's own user)
// with env on top, as KEY=VALUE, sorted: Process{RunAs: id, Env: env}.
func Build(id *runas.Identity, env map[string]string) []string {
	return Process{RunAs: id, Env: env}.Environ()
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

// BasePath is the PATH a process of id gets before env and search_path.
func BasePath(id *runas.Identity) string {
	m := Base(id)
	return m[pathKey(m)]
}

// pathKey is the name the PATH variable has in m: "PATH", or on Windows
// whatever case the system block spells it in ("Path").
func pathKey(m map[string]string) string {
	for k := range m {
		if strings.EqualFold(k, "PATH") {
			return k
		}
	}
	return "PATH"
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
		if k, v, ok := strings.Cut(env[i], "="); ok && strings.EqualFold(k, "PATH") {
			return v
		}
	}
	return ""
}

// NotFoundError is a bare program name the process's PATH does not hold.
// It says which PATH was searched and, to spare the person the guess,
// where the caller's own PATH (a shell's, or the agent's) finds it.
type NotFoundError struct {
	Name     string
	Searched string // the process's PATH
	Caller   string // the program where the caller's PATH finds it; "" nowhere
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("%q is not in the PATH a service gets (%s)", e.Name, e.Searched)
	if e.Caller == "" {
		return msg + ", nor in this svc-ctl's own PATH: install it, or write its absolute path in the command"
	}
	return msg + fmt.Sprintf("; this svc-ctl's own PATH finds it at %s: write that absolute path in the command, or add search_path = [%q]",
		e.Caller, filepath.Dir(e.Caller))
}

// Unwrap makes it exec.ErrNotFound (and fs.ErrNotExist) to errors.Is.
func (e *NotFoundError) Unwrap() []error { return []error{exec.ErrNotFound, fs.ErrNotExist} }

// notFound is the error for name not in PATH searched.
func notFound(name, searched string) error {
	e := &NotFoundError{Name: name, Searched: searched}
	if p, err := exec.LookPath(name); err == nil { // the caller's PATH: for the message only
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		e.Caller = p
	}
	return e
}

// Mismatch is what `config check` says about a bare program name of a
// command: "" when the process's PATH finds it and finds the file the
// caller's PATH finds (or the caller's finds none); else what is wrong,
// naming both files (or the PATH searched) and what to write.
func (p Process) Mismatch(name string) string {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	got, err := p.LookPath(name)
	var nf *NotFoundError
	switch {
	case errors.As(err, &nf):
		return nf.Error()
	case err != nil:
		return ""
	}
	mine, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(mine); err == nil {
		mine = abs
	}
	if sameFile(got, mine) {
		return ""
	}
	return fmt.Sprintf("%q is %s in the PATH a service gets, but %s in this svc-ctl's own PATH: write the one you mean as an absolute path, or add search_path = [%q]",
		name, got, mine, filepath.Dir(mine))
}
