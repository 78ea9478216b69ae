//go:build windows

package probe

import (
	"errors"
	"syscall"
)

// Winsock's own codes: on Windows a refused or reset connect reports these,
// not the invented syscall.ECONNREFUSED.
const (
	wsaeConnReset   syscall.Errno = 10054
	wsaeConnRefused syscall.Errno = 10061
)

func isRefused(err error) bool {
	return errors.Is(err, wsaeConnRefused) || errors.Is(err, syscall.ECONNREFUSED)
}

func isReset(err error) bool {
	return errors.Is(err, wsaeConnReset) || errors.Is(err, syscall.ECONNRESET)
}
