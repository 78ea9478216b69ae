package agent

import (
	"errors"
	"fmt"

	"svcctl/state"
)

// ErrNoAgent: no agent holds the state dir's lock, so there is none to
// ask to reload (the next one to start reads the file anyway).
var ErrNoAgent = errors.New("no agent is running")

// RequestReload wakes the agent running on p's state dir to re-read its
// config: SIGHUP on unix, its named reload event on Windows (reload_*.go).
// Write the request first (WriteReloadRequest).
func RequestReload(p state.Paths) error {
	held, err := state.AgentLockHeld(p)
	if err != nil {
		return err
	}
	if !held {
		return fmt.Errorf("%w on state dir %s", ErrNoAgent, p.State)
	}
	pid, err := state.ReadAgentPID(p)
	if err != nil {
		return fmt.Errorf("the agent's pid (%s): %w", p.AgentPID(), err)
	}
	return signalReload(p, pid)
}
