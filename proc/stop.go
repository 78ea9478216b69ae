package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// StopResult says how Stop ended a process.
type StopResult struct {
	// AlreadyGone: nothing was running under the identity; nothing was signalled.
	AlreadyGone bool `json:"already_gone,omitempty"`
	// Signal is what ended the process: "SIGTERM" or "SIGKILL" on unix,
	// "TerminateProcess" on Windows.
	Signal string `json:"signal,omitempty"`
	// KilledStragglers: members of the process group outlived the leader past
	// the timeout and were sent SIGKILL.
	KilledStragglers bool `json:"killed_stragglers,omitempty"`
	// Elapsed is how long the stop took.
	Elapsed time.Duration `json:"elapsed_ns"`
}

const (
	// pollInterval paces the identity re-checks while waiting for an exit.
	pollInterval = 25 * time.Millisecond
	// killWait bounds the wait for a process that was sent SIGKILL to
	// disappear; one that is still there is stuck in the kernel.
	killWait = 5 * time.Second
)

// stopTarget is the OS seam of Stop: how to ask a verified process (and its
// group) to end, and how to force it.
type stopTarget interface {
	graceful() (signal string, err error) // ask the process group to end
	force() (signal string, err error)    // end it now
	lingering() bool                      // group members besides the leader still alive
	killGroup() error                     // force the remaining group members
	close()
}

// Stop ends the process named by id, but only if Match proves it is that
// instance: a mismatch gives ErrNotOurs and nothing is signalled; no process
// at all gives StopResult{AlreadyGone: true}. It asks the process group to
// end, waits up to timeout (re-checking identity, so a PID reused meanwhile
// is never forced), then forces it. If ctx ends first, Stop returns ctx's
// error and the process may still be running.
func Stop(ctx context.Context, id Identity, timeout time.Duration) (StopResult, error) {
	start := time.Now()
	if err := stoppable(id); err != nil {
		return StopResult{}, err
	}
	t, gone, err := verify(id)
	if err != nil || gone {
		return StopResult{AlreadyGone: gone}, err
	}
	defer t.close()
	res, err := endLeader(ctx, id, t, start.Add(timeout))
	if err == nil && res.Signal != "SIGKILL" {
		res.KilledStragglers, err = endStragglers(ctx, t, start.Add(timeout))
	}
	res.Elapsed = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("stop pid %d: %w", id.PID, err)
	}
	return res, nil
}

// stoppable refuses identities no service can have: init, and svc-ctl itself.
func stoppable(id Identity) error {
	if id.PID <= 1 || int(id.PID) == os.Getpid() {
		return fmt.Errorf("stop pid %d: %w: not a service process", id.PID, ErrInvalidIdentity)
	}
	return nil
}

// verify proves id before anything is signalled and opens the OS target.
func verify(id Identity) (t stopTarget, gone bool, err error) {
	st, err := inspect(id)
	switch {
	case err != nil:
		return nil, false, fmt.Errorf("stop pid %d: %w", id.PID, err)
	case st == stateGone:
		return nil, true, nil
	case st == stateNotOurs:
		return nil, false, fmt.Errorf("stop pid %d: %w: nothing was signalled", id.PID, ErrNotOurs)
	}
	t, err = openTarget(id)
	switch {
	case errors.Is(err, ErrGone):
		return nil, true, nil // ended between the check and the open
	case err != nil:
		return nil, false, fmt.Errorf("stop pid %d: %w", id.PID, err)
	}
	return t, false, nil
}

// endLeader asks the verified process to end and forces it at the deadline.
func endLeader(ctx context.Context, id Identity, t stopTarget, deadline time.Time) (StopResult, error) {
	sig, err := t.graceful()
	if err != nil {
		return StopResult{}, err
	}
	ended, err := pollUntil(ctx, deadline, func() bool { return !stillOurs(id) })
	if err != nil || ended {
		return StopResult{Signal: sig}, err
	}
	// Re-check right before forcing: the process may have ended, and its PID
	// been reused, since the last poll.
	st, err := inspect(id)
	if err != nil || st != stateOurs {
		return StopResult{Signal: sig}, err
	}
	if sig, err = t.force(); err != nil {
		return StopResult{}, err
	}
	ended, err = pollUntil(ctx, time.Now().Add(killWait), func() bool { return !stillOurs(id) })
	if err == nil && !ended {
		err = fmt.Errorf("still running %s after %s (stuck in the kernel?)", killWait, sig)
	}
	return StopResult{Signal: sig}, err
}

// endStragglers waits for the rest of the process group until the deadline,
// then forces whoever is left. It reports whether it had to.
func endStragglers(ctx context.Context, t stopTarget, deadline time.Time) (bool, error) {
	if !t.lingering() {
		return false, nil
	}
	empty, err := pollUntil(ctx, deadline, func() bool { return !t.lingering() })
	if err != nil || empty {
		return false, err
	}
	return true, t.killGroup()
}

// stillOurs is the poll condition: a read error counts as still running, so
// an unreadable moment never passes for an exit.
func stillOurs(id Identity) bool {
	st, err := inspect(id)
	return err != nil || st == stateOurs
}

// pollUntil calls done every pollInterval until it is true (true, nil), the
// deadline passes (false, nil) or ctx ends (false, ctx's error). done is
// always called at least once.
func pollUntil(ctx context.Context, deadline time.Time, done func() bool) (bool, error) {
	for {
		if done() {
			return true, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		timer := time.NewTimer(min(pollInterval, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false, ctx.Err()
		case <-timer.C:
		}
	}
}
