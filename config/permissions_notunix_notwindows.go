//go:build !unix && !windows

package config

// CheckPermissions has nothing to check where there are no file owners or
// access lists; the agent never runs privileged there.
func CheckPermissions(path string) error { return nil }

func checkPermissions(what, path string, dirs map[string]bool) error { return nil }

func checkDirPermissions(what, dir string) error { return nil }
