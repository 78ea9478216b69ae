//go:build !unix

package benchkit

import (
	"errors"
	"time"
)

// SelfCPU needs getrusage: it fails on this OS.
func SelfCPU() (time.Duration, error) { return 0, errors.New("getrusage: needs a unix OS") }
