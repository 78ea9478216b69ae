package main

import (
	"errors"
	"strings"
)

// errSilent marks an error whose message was already printed (a failed check
// whose table is the message); only its exit code matters.
var errSilent = errors.New("check failed")

// usageError is a bad flag or argument: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// configError is a configuration that cannot be used: exit 2.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// checkFailed is a check that ran and said no (unhealthy, start-failed, FAIL,
// missing runs): exit 1.
type checkFailed struct{ err error }

func (e checkFailed) Error() string { return e.err.Error() }
func (e checkFailed) Unwrap() error { return e.err }

func exitCode(err error) int {
	var u usageError
	var c configError
	var x exitStatus
	switch {
	case errors.As(err, &x):
		return x.code
	case errors.As(err, &u), errors.As(err, &c):
		return 2
	case isCobraUsage(err):
		return 2
	default:
		return 1
	}
}

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u) || isCobraUsage(err)
}

// isCobraUsage recognises the argument errors cobra creates itself (unknown
// command, wrong number of args), which carry no type of their own.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires exactly", "unknown flag", "unknown shorthand"} {
		if strings.HasPrefix(s, p) || strings.Contains(s, " "+p) {
			return true
		}
	}
	return false
}
