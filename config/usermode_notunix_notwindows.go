//go:build !unix && !windows

package config

// UserMode is always true where there is no notion of a privileged agent.
func UserMode() bool { return true }
