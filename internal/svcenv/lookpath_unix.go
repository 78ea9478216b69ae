//go:build unix

package svcenv

import (
	"os"
	"path/filepath"
	"strings"
)

// LookPath finds a bare program name in the PATH of env, the environment
// the process will get, not in the caller's: a start from a shell whose
// PATH has ~/.pyenv/shims first must run what the agent would run. A name
// with a slash is returned as is. A name not found is a *NotFoundError.
func LookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := PathOf(env)
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // "" and relative entries mean the working directory: never
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", notFound(name, path)
}

// sameFile reports whether the paths a and b name one file (a link and
// its target count as one: a shim that links to /usr/bin/python3 is it).
func sameFile(a, b string) bool {
	fa, erra := os.Stat(a)
	fb, errb := os.Stat(b)
	return erra == nil && errb == nil && os.SameFile(fa, fb)
}
