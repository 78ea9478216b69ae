package proc

import (
	"context"
	"fmt"
)

// The kill at once, with no stop first: a tree, or one member of it, each
// process checked to be ours still.

// Kill ends id's tree at once (see KillTree).
func Kill(id Identity) error { return KillTree(Instance{Identity: id}) }

// KillTree ends every process of inst's tree at once (SIGKILL on unix,
// TerminateJobObject/TerminateProcess on Windows), with the same proofs as
// StopTree. No live process gives ErrGone.
func KillTree(inst Instance) error {
	t, rec, err := Look(inst, Scan)
	if err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	if t.Len() == 0 {
		if t.LeaderReused {
			return fmt.Errorf("kill pid %d: %w: nothing was signalled", inst.PID, ErrNotOurs)
		}
		return fmt.Errorf("kill pid %d: %w", inst.PID, ErrGone)
	}
	k, err := newKiller(inst)
	if err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	defer k.close()
	s := &stopping{inst: rec, k: k, ends: map[int32]*MemberEnd{}, sent: map[int32]string{}}
	if err := s.force(context.Background(), t); err != nil {
		return fmt.Errorf("kill pid %d: %w", inst.PID, err)
	}
	return nil
}

// KillMember ends one member of inst's tree at once (SIGKILL,
// TerminateProcess), its identity proven first: `svc-ctl drill` kills the
// process that serves, as a crash would.
func KillMember(inst Instance, m Member) error {
	k, err := newKiller(inst)
	if err != nil {
		return fmt.Errorf("kill pid %d: %w", m.PID, err)
	}
	defer k.close()
	if err := k.kill(m); err != nil {
		return fmt.Errorf("kill pid %d: %w", m.PID, err)
	}
	return nil
}

// stillOurs is a poll condition: a read error counts as still running, so
// an unreadable moment never passes for an exit.
func stillOurs(id Identity) bool {
	st, err := inspect(id)
	return err != nil || st == stateOurs
}
