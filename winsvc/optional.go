package winsvc

import (
	"errors"
	"fmt"
)

// Warning is an optional service setting the service control manager did not
// take. The agent service works without it: install goes on and says so,
// and verify says it again, each as a WARN.
type Warning struct {
	Setting string // what svc-ctl asked for, with the SCM's name for it
	Lacks   string // what the service lacks without it
	Err     error  // the SCM's answer
}

func (w Warning) String() string {
	return fmt.Sprintf("%s not set: the service manager does not support it (%v); %s", w.Setting, w.Err, w.Lacks)
}

// Names of the optional settings, as install and verify print them.
const (
	settingNonCrash    = "recovery on non-crash failures (SERVICE_CONFIG_FAILURE_ACTIONS_FLAG)"
	settingPreshutdown = "preshutdown timeout (SERVICE_CONFIG_PRESHUTDOWN_INFO)"
	lacksNonCrash      = "the SCM restarts the agent after a crash, not after an exit with an error code"
	lacksPreshutdown   = "at system shutdown the agent may get less time to drain than drain_timeout"
)

// errUnsupportedSetting marks an SCM answer that means "no such setting
// here" rather than "not allowed": Windows before Vista, and Wine 8 for the
// failure-actions flag (ERROR_INVALID_LEVEL).
var errUnsupportedSetting = errors.New("setting not supported by this service control manager")

// Apply applies s to the installed service name. The recovery actions are
// what makes the SCM restart a dead agent: any failure there is an error.
// The non-crash flag and the preshutdown timeout refine them; an SCM that
// does not know one returns a Warning for it, never an error, so an install
// is not aborted for a refinement. Any other refusal (access denied) is an
// error. Every setting is tried even when an earlier one failed.
func Apply(name string, s Settings) ([]Warning, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var errs []error
	var warns []Warning
	if err := scmAPI.setRecoveryActions(name, s.RestartDelays, s.ResetPeriod); err != nil {
		errs = append(errs, fmt.Errorf("set recovery actions of service %q: %w", name, err))
	}
	optional := func(setting, lacks string, err error) {
		switch {
		case err == nil:
		case errors.Is(err, errUnsupportedSetting):
			warns = append(warns, Warning{Setting: setting, Lacks: lacks, Err: unwrapUnsupported(err)})
		default:
			errs = append(errs, fmt.Errorf("set %s of service %q: %w", setting, name, err))
		}
	}
	optional(settingNonCrash, lacksNonCrash, scmAPI.setRecoveryOnNonCrashFailures(name, s.NonCrashFailures))
	optional(settingPreshutdown, lacksPreshutdown, scmAPI.setPreshutdownTimeout(name, s.PreshutdownTimeout))
	return warns, errors.Join(errs...)
}

// Check reads the optional settings back from the SCM (verify judges by
// what the SCM holds, not by what install once printed) and returns a
// Warning for each it does not hold as s asks.
func Check(name string, s Settings) ([]Warning, error) {
	var warns []Warning
	on, err := scmAPI.recoveryOnNonCrashFailures(name)
	switch {
	case errors.Is(err, errUnsupportedSetting):
		warns = append(warns, Warning{Setting: settingNonCrash, Lacks: lacksNonCrash, Err: unwrapUnsupported(err)})
	case err != nil:
		return nil, fmt.Errorf("read %s of service %q: %w", settingNonCrash, name, err)
	case on != s.NonCrashFailures:
		warns = append(warns, Warning{Setting: settingNonCrash, Lacks: lacksNonCrash,
			Err: fmt.Errorf("it is %t, want %t: run svc-ctl install again", on, s.NonCrashFailures)})
	}
	d, err := scmAPI.preshutdownTimeout(name)
	switch {
	case errors.Is(err, errUnsupportedSetting):
		warns = append(warns, Warning{Setting: settingPreshutdown, Lacks: lacksPreshutdown, Err: unwrapUnsupported(err)})
	case err != nil:
		return nil, fmt.Errorf("read %s of service %q: %w", settingPreshutdown, name, err)
	case d < s.PreshutdownTimeout:
		warns = append(warns, Warning{Setting: settingPreshutdown, Lacks: lacksPreshutdown,
			Err: fmt.Errorf("it is %s, want %s: run svc-ctl install again", d, s.PreshutdownTimeout)})
	}
	return warns, nil
}

// unsupported wraps the SCM's own error so that errors.Is finds
// errUnsupportedSetting and the message stays the SCM's.
type unsupported struct{ err error }

func (u unsupported) Error() string        { return u.err.Error() }
func (u unsupported) Is(target error) bool { return target == errUnsupportedSetting }
func (u unsupported) Unwrap() error        { return u.err }

func unwrapUnsupported(err error) error {
	var u unsupported
	if errors.As(err, &u) {
		return u.err
	}
	return err
}
