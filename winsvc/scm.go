package winsvc

import (
	"errors"
	"fmt"
	"time"
)

// ErrUnsupported is returned by the SCM calls on an OS other than Windows.
var ErrUnsupported = errors.New("winsvc: only available on windows")

// ErrNotService is returned by Run when the service control manager did not
// start this process (its dispatcher cannot connect); run was not called.
var ErrNotService = errors.New("not started by the service control manager")

// scm is the part of the Windows service control manager svc-ctl changes
// after kardianos created the service: one method per setting, so a test on
// any OS can put a recorder in scmAPI and check exactly what was asked.
type scm interface {
	setRecoveryActions(name string, delays []time.Duration, resetPeriod time.Duration) error
	setRecoveryOnNonCrashFailures(name string, on bool) error
	setPreshutdownTimeout(name string, d time.Duration) error
	recoveryOnNonCrashFailures(name string) (bool, error)
	preshutdownTimeout(name string) (time.Duration, error)
	binaryPath(name string) (string, error)
}

// scmAPI is the real SCM on Windows and a stub elsewhere; tests swap it.
var scmAPI scm = systemSCM{}

// Configure applies s to the installed service name. Each setting is applied
// even when an earlier one failed, so one refusal does not hide the others;
// the errors are joined. Apply is what install should call: it tells an
// unsupported optional setting (a WARN) from a refusal.
func Configure(name string, s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	var errs []error
	if err := scmAPI.setRecoveryActions(name, s.RestartDelays, s.ResetPeriod); err != nil {
		errs = append(errs, fmt.Errorf("set recovery actions of service %q: %w", name, err))
	}
	if err := scmAPI.setRecoveryOnNonCrashFailures(name, s.NonCrashFailures); err != nil {
		errs = append(errs, fmt.Errorf("set recovery on non-crash failures of service %q: %w", name, err))
	}
	if err := scmAPI.setPreshutdownTimeout(name, s.PreshutdownTimeout); err != nil {
		errs = append(errs, fmt.Errorf("set preshutdown timeout of service %q: %w", name, err))
	}
	return errors.Join(errs...)
}

// BinaryPath returns the command line the SCM runs for service name, so an
// install can tell "already installed as planned" from "installed differently".
func BinaryPath(name string) (string, error) {
	p, err := scmAPI.binaryPath(name)
	if err != nil {
		return "", fmt.Errorf("read the command line of service %q: %w", name, err)
	}
	return p, nil
}
