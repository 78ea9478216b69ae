//go:build !unix

package proc

import (
	"errors"
	"fmt"
	"runtime"
)

// readDaemonPidFile: pid_file is not used on Windows, where the job object
// owns every process of an instance (config refuses the key there).
func readDaemonPidFile(path string, _ *uint32) ([]byte, error) {
	return nil, fmt.Errorf("pid_file %s on %s: %w", path, runtime.GOOS, errors.ErrUnsupported)
}
