//go:build !unix

package svcenv

import (
	"os/exec"
	"strings"
)

// LookPath is exec.LookPath here: Windows services and a shell see the same
// system Path for a LocalSystem agent's programs. A path (a name with a
// separator or a drive) is not looked up in Path: when it does not resolve
// (with each PATHEXT extension) it is returned as is, as on Unix, so that
// starting it says what is wrong with it rather than "not in the service's
// PATH" about a path that was never looked up there.
func LookPath(name string, env []string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil && strings.ContainsAny(name, `/\:`) {
		return name, nil
	}
	return p, err
}
