//go:build !windows

package winsvc

import "time"

// systemSCM is the stub for OSes without a service control manager.
type systemSCM struct{}

func (systemSCM) setRecoveryActions(string, []time.Duration, time.Duration) error {
	return ErrUnsupported
}
func (systemSCM) setRecoveryOnNonCrashFailures(string, bool) error  { return ErrUnsupported }
func (systemSCM) setPreshutdownTimeout(string, time.Duration) error { return ErrUnsupported }
func (systemSCM) binaryPath(string) (string, error)                 { return "", ErrUnsupported }
func (systemSCM) recoveryOnNonCrashFailures(string) (bool, error)   { return false, ErrUnsupported }
func (systemSCM) preshutdownTimeout(string) (time.Duration, error)  { return 0, ErrUnsupported }
