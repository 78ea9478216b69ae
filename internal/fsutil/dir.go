package fsutil

import (
	"fmt"
	"os"
)

// DirPerm is the mode of every directory svc-ctl creates: state is private.
const DirPerm os.FileMode = 0o700

// EnsureDir creates dir and its missing parents with mode 0700. An existing
// directory is left as it is (its mode is not changed).
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	return nil
}
