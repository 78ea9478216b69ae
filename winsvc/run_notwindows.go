//go:build !windows

package winsvc

import "context"

// IsService reports whether this process was started by the Windows service
// control manager: never, on this OS.
func IsService() (bool, error) { return false, nil }

// Run is only available on Windows: ErrUnsupported, run is not called.
func Run(string, func(ctx context.Context) error) error { return ErrUnsupported }
