package winsvc

import (
	"fmt"
	"strings"
	"time"
)

// Settings are the service control manager settings svc-ctl applies to its
// agent service after kardianos created it.
type Settings struct {
	// RestartDelays are the recovery actions, in order: the SCM restarts the
	// service after the first delay on its first failure, the second on its
	// second, and repeats the last one from then on.
	RestartDelays []time.Duration
	// ResetPeriod is how long without a failure resets the failure count.
	ResetPeriod time.Duration
	// NonCrashFailures makes the SCM apply the recovery actions also when the
	// service stops itself with a non-zero exit code, not only when it crashes.
	NonCrashFailures bool
	// PreshutdownTimeout is how long Windows waits, at system shutdown, for a
	// service that accepts PRESHUTDOWN before it moves on. It must exceed the
	// agent's drain_timeout: otherwise shutdown cuts the drain short.
	PreshutdownTimeout time.Duration
}

// StopMargin is how much longer than drain_timeout the OS waits for the agent
// to stop: the drain itself, then closing the database and the log.
const StopMargin = 15 * time.Second

// DefaultSettings are the settings for an agent whose drain_timeout is drain:
// restart after 5 s, 30 s, 60 s; failure count reset after one day; recovery on
// non-crash failures too; preshutdown timeout drain + StopMargin.
func DefaultSettings(drain time.Duration) Settings {
	return Settings{
		RestartDelays:      []time.Duration{5 * time.Second, 30 * time.Second, 60 * time.Second},
		ResetPeriod:        24 * time.Hour,
		NonCrashFailures:   true,
		PreshutdownTimeout: drain + StopMargin,
	}
}

// Validate reports settings the SCM would reject or silently misread.
func (s Settings) Validate() error {
	if len(s.RestartDelays) == 0 {
		return fmt.Errorf("winsvc: no recovery actions: at least one restart delay is needed")
	}
	for i, d := range s.RestartDelays {
		if d < 0 || d.Milliseconds() > 1<<31 {
			return fmt.Errorf("winsvc: restart delay %d (%s) out of range", i+1, d)
		}
	}
	if s.ResetPeriod < time.Second {
		return fmt.Errorf("winsvc: reset period %s: must be at least 1s", s.ResetPeriod)
	}
	if s.PreshutdownTimeout < time.Second {
		return fmt.Errorf("winsvc: preshutdown timeout %s: must be at least 1s", s.PreshutdownTimeout)
	}
	return nil
}

// String describes the settings one per line, the way a person checks them
// against `sc.exe qfailure svc-ctl` and `sc.exe qpreshutdown`-style output.
func (s Settings) String() string {
	var b strings.Builder
	delays := make([]string, len(s.RestartDelays))
	for i, d := range s.RestartDelays {
		delays[i] = fmt.Sprintf("restart after %s", d)
	}
	fmt.Fprintf(&b, "recovery actions: %s\n", strings.Join(delays, ", "))
	fmt.Fprintf(&b, "failure count reset after: %s (%d s)\n", s.ResetPeriod, int64(s.ResetPeriod/time.Second))
	fmt.Fprintf(&b, "recovery on non-crash failures: %t\n", s.NonCrashFailures)
	fmt.Fprintf(&b, "preshutdown timeout: %s\n", s.PreshutdownTimeout)
	return b.String()
}
