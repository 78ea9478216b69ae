//go:build unix

package svcenv

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath finds a bare program name in the PATH of env, the environment
// the process will get, not in the caller's: a start from a shell whose
// PATH has ~/.pyenv/shims first must run what the agent would run. A name
// with a slash is returned as is.
func LookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(PathOf(env)) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // "" and relative entries mean the working directory: never
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: errors.Join(exec.ErrNotFound, fs.ErrNotExist)}
}
