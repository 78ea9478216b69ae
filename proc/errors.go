package proc

import "errors"

var (
	// ErrNotFound means the executable named by a command does not exist or
	// is not on PATH. Spawn wraps it with the path it looked for.
	ErrNotFound = errors.New("executable not found")

	// ErrNotOurs means a process runs under the recorded PID, but its create
	// time or executable differ from the recorded identity: the PID was
	// reused, so the process is someone else's and must not be touched.
	ErrNotOurs = errors.New("process is not the recorded instance (pid reused)")

	// ErrGone means no live process has the recorded PID (it exited, or only
	// a zombie is left).
	ErrGone = errors.New("process is not running")

	// ErrInvalidIdentity means an Identity cannot name a process svc-ctl
	// started (pid <= 1, the agent itself, or fields missing).
	ErrInvalidIdentity = errors.New("invalid process identity")
)

// isGone reports whether err says the process is not there (any more).
func isGone(err error) bool { return errors.Is(err, ErrGone) }
