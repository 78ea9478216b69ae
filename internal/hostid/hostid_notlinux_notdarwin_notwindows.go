//go:build !linux && !darwin && !windows

package hostid

import "errors"

// machineID: no machine id this package knows how to read here; Get
// keeps one of its own.
func machineID() (string, error) { return "", errors.New("no OS machine id on this OS") }
