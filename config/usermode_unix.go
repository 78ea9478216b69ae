//go:build unix

package config

import "os"

// UserMode reports whether svc-ctl runs as a per-user agent: any effective
// user but root.
func UserMode() bool { return os.Geteuid() != 0 }
