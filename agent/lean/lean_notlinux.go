//go:build !linux

package lean

// trimExecutable: only Linux is trimmed (macOS and Windows page out a
// process's idle code pages by themselves under pressure).
func trimExecutable() (int64, error) { return 0, nil }
