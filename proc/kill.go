package proc

import (
	"context"
	"fmt"
	"time"
)

// String is how a stop ended, for people: "SIGTERM", "SIGKILL after 10s",
// "already gone".
func (r StopResult) String() string {
	switch {
	case r.AlreadyGone:
		return "already gone"
	case r.KilledStragglers:
		return fmt.Sprintf("%s, group stragglers killed, in %s", r.Signal, r.Elapsed.Round(time.Millisecond))
	default:
		return fmt.Sprintf("%s, in %s", r.Signal, r.Elapsed.Round(time.Millisecond))
	}
}

// Kill ends the process named by id at once (SIGKILL to its group on unix,
// TerminateProcess on Windows), with the same proof of identity as Stop: a
// mismatch is ErrNotOurs and nothing is signalled. `svc-ctl drill` uses it to
// rehearse a sudden death.
func Kill(id Identity) error {
	if err := stoppable(id); err != nil {
		return err
	}
	t, gone, err := verify(id)
	if err != nil {
		return err
	}
	if gone {
		return fmt.Errorf("kill pid %d: %w", id.PID, ErrGone)
	}
	defer t.close()
	if _, err := t.force(); err != nil {
		return fmt.Errorf("kill pid %d: %w", id.PID, err)
	}
	_, err = pollUntil(context.Background(), time.Now().Add(killWait), func() bool { return !stillOurs(id) })
	return err
}
