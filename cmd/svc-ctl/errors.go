package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"svcctl/watchdog"
)

// Exit codes (docs/design/command-line.md, README.md): 0 success / all
// healthy; 1 a check failed (unhealthy, start-failed, FAIL in verify, missing
// runs found) or the command could not do its work; 2 a usage or
// configuration error. `exec` passes its command's own status through.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// errSilent marks a failed check whose output already said so (a table, a
// FAIL line): only its exit code matters.
var errSilent = errors.New("check failed")

// usageError is a bad command, flag or argument: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// configError is a configuration that cannot be used: exit 2.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// exitStatus is a status to exit with as it is: `exec` passing its command's
// through, the demo service's, a second signal during the drain. Its text is
// printed only when it says more than the number.
type exitStatus struct {
	code int
	msg  string
}

func (e exitStatus) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// usageArgs makes a cobra argument check's complaint a usage error (exit 2),
// so no error is ever classified by its text.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// namesOrAll is the argument rule of a verb that takes service names or
// --all, never both and never neither; each refusal says which it was.
func namesOrAll(all *bool) cobra.PositionalArgs {
	return usageArgs(func(cmd *cobra.Command, args []string) error {
		switch {
		case *all && len(args) > 0:
			return fmt.Errorf("--all and a name (%s) were both given: pass one or the other", strings.Join(args, " "))
		case !*all && len(args) == 0:
			return errors.New("name one or more services, or pass --all")
		}
		return nil
	})
}

// exitCode maps a command's error to the process exit code, printing what
// the person must read: the one place errors become exit codes. verb is the
// command that was run ("svc-ctl stop"): a usage error points at its help,
// not the root's; a name that is not configured already says what is.
func exitCode(err error, stderr io.Writer, verb string) int {
	if err == nil {
		return exitOK
	}
	var (
		x exitStatus
		u usageError
		c configError
	)
	switch {
	case errors.As(err, &x):
		if x.msg != "" {
			fmt.Fprintf(stderr, "svc-ctl: %s\n", x.msg)
		}
		return x.code
	case errors.Is(err, errSilent):
		return exitFailed
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "svc-ctl: %v\n", err)
		if !errors.Is(err, watchdog.ErrUnknownName) {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", verb)
		}
		return exitUsage
	case errors.As(err, &c):
		fmt.Fprintf(stderr, "svc-ctl: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "svc-ctl: %v\n", err)
	return exitFailed
}
