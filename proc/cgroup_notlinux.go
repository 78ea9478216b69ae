//go:build !linux

package proc

import "runtime"

// DelegatedCgroup: cgroups are Linux only; elsewhere a tree is owned by its
// session (unix) or job object (Windows).
func DelegatedCgroup() (dir string, ok bool, why string) {
	return "", false, "no cgroups on " + runtime.GOOS
}

// DelegatedCgroupOf: see DelegatedCgroup.
func DelegatedCgroupOf(int32) (dir string, ok bool, why string) { return DelegatedCgroup() }
