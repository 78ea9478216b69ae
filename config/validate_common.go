package config

import (
	"errors"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
)

// nameRE is the rule for service and job names: they become directory
// names under <state>/services/ and job ids in run_trace, so they stay
// short, lower case and free of path separators on every OS.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

const nameRule = "use 1 to 63 characters from a-z, 0-9, '.', '_' and '-', starting with a letter or digit"

func validName(s string) bool { return nameRE.MatchString(s) }

// ValidName reports whether s is a name a service or job may have.
func ValidName(s string) bool { return validName(s) }

// name checks the name of list element path (service[i] or job[i]);
// seen maps names already used in the same list to their line.
func (c *checker) name(path, name string, seen map[string]int) {
	key := path + ".name"
	switch {
	case name == "":
		c.fail(key, `missing name: set name = "..." (%s)`, nameRule)
	case !validName(name):
		c.fail(key, "invalid name %q: %s", name, nameRule)
	default:
		if first, dup := seen[name]; dup {
			c.fail(key, "duplicate name %q: already used at line %d; give each %s its own name",
				name, first, headerName(path))
			return
		}
		seen[name] = c.doc.line(key)
	}
}

// command checks an argv list: it must name a program. hint ends the
// message with what else would be valid.
func (c *checker) command(path string, argv []string, hint string) {
	if len(argv) == 0 || argv[0] == "" {
		c.fail(path, `empty command: set %s = ["/path/to/program", "arg", ...] (an argv list, never run by a shell)%s`,
			path[strings.LastIndexByte(path, '.')+1:], hint)
	}
}

// env checks variable names (never values: they may be secrets and are not
// echoed in messages).
func (c *checker) env(path string, env map[string]string) map[string]string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			c.fail(joinKey(path, k), "invalid variable name %q: it must not be empty or contain '=' or a NUL byte", k)
		case strings.ContainsRune(env[k], 0):
			c.fail(joinKey(path, k), "the value contains a NUL byte, which no OS can pass to a process")
		}
	}
	return env
}

// path resolves a path from the file: relative paths are taken relative to
// the config file's directory, so a config works the same from any working
// directory. "~" is not a shell here and is refused rather than creating a
// directory literally named "~".
func (c *checker) path(key, p string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		c.fail(key, "%q: ~ is not expanded here: write the full path, or a path relative to the config file", p)
		return p
	}
	switch {
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`):
		// Windows: rooted but without a drive; take the config's drive.
		return filepath.Join(filepath.VolumeName(c.base), p)
	}
	return filepath.Join(c.base, p)
}

// hostPort checks an address like 127.0.0.1:8789. listen addresses may
// leave the host out (all interfaces) and use port 0 (any free port).
func (c *checker) hostPort(path, v, example string, listen bool) {
	host, port, err := net.SplitHostPort(v)
	n, perr := strconv.Atoi(port)
	low := 1
	if listen {
		low = 0
	}
	if err != nil || perr != nil || n < low || n > 65535 || (host == "" && !listen) {
		c.fail(path, "invalid address %q: use host:port like %s", v, example)
	}
}

// httpURL checks an http(s) URL (only https when httpsOnly). The message
// shows the URL redacted: it may carry a password or a token.
// It reports whether v is valid.
func (c *checker) httpURL(path, v string, httpsOnly bool) bool {
	u, err := url.Parse(v)
	ok := err == nil && u.Host != "" && (u.Scheme == "https" || (u.Scheme == "http" && !httpsOnly))
	if ok {
		return true
	}
	want := "an http:// or https:// URL with a host"
	if httpsOnly {
		want = "an https:// URL with a host"
	}
	if err != nil {
		c.fail(path, "invalid URL: use %s, like https://example.com/health", want)
		return false
	}
	c.fail(path, "invalid URL %q: use %s", redact.URL(v), want)
	return false
}

// expectStatus checks an HTTP status to expect; 0 means any 2xx.
func (c *checker) expectStatus(path string, v int) {
	if v != 0 && (v < 100 || v > 599) {
		c.fail(path, "%d is not an HTTP status: use 100 to 599, or leave it out to accept any 2xx", v)
	}
}

// envFile reads the env_file at key (already resolved to an absolute path)
// and returns env overlaid on it: env wins over the file. Errors name the
// file and line, never a value.
func (c *checker) envFile(key, path string, env map[string]string) map[string]string {
	if path == "" {
		return env
	}
	fileEnv, err := readEnvFile(path)
	if err != nil && c.deniedEnvFileOK && errors.Is(err, fs.ErrPermission) {
		if !slices.Contains(c.unread, path) {
			c.unread = append(c.unread, path)
		}
		return env
	}
	if err != nil {
		c.fail(key, "%v", err)
		return env
	}
	out := make(map[string]string, len(fileEnv)+len(env))
	for k, v := range fileEnv {
		out[k] = v
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// size parses the size at path, or def when it is left out, and checks it
// is at least least.
func (c *checker) size(path string, v *sizeText, def, least string) int64 {
	s := def
	if v != nil {
		s = string(*v)
	}
	n, err := ParseSize(s)
	if err != nil {
		c.fail(path, "%v", err)
		return 0
	}
	if bound, _ := ParseSize(least); n < bound {
		c.fail(path, "%q is too small: use at least %s", s, least)
	}
	return n
}

// searchPath checks search_path: absolute directories, each once; for a
// system agent only directories non-administrators cannot write (nor any
// directory above them: whoever could write there could put a program of
// their own where root looks for one), each refusal naming the directory
// and what to do.
func (c *checker) searchPath(key string, dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		switch {
		case d == "" || !filepath.IsAbs(d):
			c.fail(key, "%q is not an absolute directory: write the full path (search_path is searched from anywhere, never relative to a directory)", d)
			continue
		case seen[filepath.Clean(d)]:
			c.fail(key, "%q is listed twice: keep one", d)
			continue
		}
		d = filepath.Clean(d)
		seen[d] = true
		if !c.user {
			if err := fsutil.CheckAdminOnlyDir(d); err != nil {
				c.fail(key, "%v: the system agent would run programs from it as the service's user; use a directory only administrators can write, or give the program's absolute path in command", err)
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// sortedKeys are the names of m, sorted; nil when there are none.
func sortedKeys(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
