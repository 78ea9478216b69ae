//go:build unix && !linux

package proc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// checkKiller re-reads a member's start stamp right before kill(2): the
// window between the two is microseconds, and the PID would have to be
// reused within it.
type checkKiller struct{}

func newKiller(Instance) (killer, error) { return checkKiller{}, nil }

func (checkKiller) defaultSignal() string { return "SIGTERM" }
func (checkKiller) signal(m Member, name string) error {
	sig, err := signalNamed(name)
	if err != nil {
		return err
	}
	return signalChecked(m, sig)
}
func (checkKiller) resume(m Member)     { _ = signalChecked(m, unix.SIGCONT) }
func (checkKiller) kill(m Member) error { return signalChecked(m, unix.SIGKILL) }
func (checkKiller) killAll() bool       { return false }
func (checkKiller) close()              {}
func (checkKiller) wait(ctx context.Context, _ []Member, d time.Duration) {
	t := time.NewTimer(min(d, pollInterval))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func signalChecked(m Member, sig unix.Signal) error {
	if m.PID <= 1 {
		return fmt.Errorf("pid %d: %w", m.PID, ErrInvalidIdentity)
	}
	st, err := inspect(m.Identity)
	switch {
	case err != nil:
		return err
	case st == stateGone:
		return fmt.Errorf("pid %d: %w", m.PID, ErrGone)
	case st == stateNotOurs:
		return fmt.Errorf("pid %d: %w", m.PID, ErrNotOurs)
	}
	err = unix.Kill(int(m.PID), sig)
	if errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("pid %d: %w", m.PID, ErrGone)
	}
	if err != nil {
		return fmt.Errorf("%s to pid %d: %w", unix.SignalName(sig), m.PID, err)
	}
	return nil
}

func releaseTree(Instance) {}
