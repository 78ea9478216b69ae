//go:build unix

package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// readableByOthers names who besides the owner can read path (its group,
// everyone) and the chmod that stops it; "" when nobody else can.
func readableByOthers(path string) (who, fix string, err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", fmt.Errorf("check who can read %s: %w", path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", "", fmt.Errorf("check who can read %s: %w", path, err)
	}
	perm := fi.Mode().Perm()
	switch {
	case perm&0o004 != 0:
		who = "everyone"
	case perm&0o040 != 0:
		who = "its group"
	default:
		return "", "", nil
	}
	return fmt.Sprintf("%s (mode %#o)", who, perm), "chmod 600 " + real, nil
}
