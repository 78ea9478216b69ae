//go:build !linux

package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime"
)

// moveToScope: systemd scopes are Linux's.
func moveToScope(context.Context) (string, error) {
	return "", fmt.Errorf("no systemd on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
