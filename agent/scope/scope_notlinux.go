//go:build !linux

package scope

import (
	"context"
	"errors"
	"fmt"
	"runtime"
)

// MoveSelf: systemd scopes are Linux's.
func MoveSelf(context.Context) (string, error) {
	return "", fmt.Errorf("no systemd on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
