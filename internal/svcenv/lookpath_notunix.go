//go:build !unix

package svcenv

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

// LookPath finds a bare program name in the Path of env (with each PATHEXT
// extension), not in the caller's. A path (a name with a separator or a
// drive) is not looked up in Path: when it does not resolve it is returned
// as is, so that starting it says what is wrong with it rather than "not
// in the service's PATH" about a path that was never looked up there.
func LookPath(name string, env []string) (string, error) {
	if strings.ContainsAny(name, `/\:`) {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		return name, nil
	}
	path := PathOf(env)
	for _, dir := range strings.Split(path, ";") {
		if dir == "" {
			continue
		}
		if p, err := exec.LookPath(dir + `\` + name); err == nil {
			return p, nil
		} else if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, os.ErrNotExist) {
			continue
		}
	}
	return "", notFound(name, path)
}

// sameFile reports whether the paths a and b name one file.
func sameFile(a, b string) bool {
	fa, erra := os.Stat(a)
	fb, errb := os.Stat(b)
	return erra == nil && errb == nil && os.SameFile(fa, fb)
}
