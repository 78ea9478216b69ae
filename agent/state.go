package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/probe"
	"svcctl/snapshot"
)

// Service states, as `status` shows them.
const (
	StateUnknown   = "unknown"
	StateHealthy   = "healthy"
	StateUnhealthy = "unhealthy"
	StateStarting  = "starting"
	StateBackoff   = "backoff"
	StateGivenUp   = "given-up"
	StatePaused    = "paused"
)

const maxTransitions = 12

// ServiceState is what the cycle remembers between runs, persisted in
// services/<name>/state.json so the failure counter, backoff and given-up
// survive an agent restart. It lives in a plain file, not in the database:
// supervision must keep working when the ledger is damaged.
type ServiceState struct {
	State        string                `json:"state"`
	Failures     int                   `json:"consecutive_failures"`
	BackoffUntil time.Time             `json:"backoff_until,omitzero"`
	GivenUpAt    time.Time             `json:"given_up_at,omitzero"`
	LastHealthy  time.Time             `json:"last_healthy,omitzero"`
	LastRestart  time.Time             `json:"last_restart,omitzero"`
	LastStartTry time.Time             `json:"last_start_try,omitzero"`
	LastCycle    time.Time             `json:"last_cycle,omitzero"`
	LastProbe    []probe.Result        `json:"last_probe,omitempty"`
	Transitions  []snapshot.Transition `json:"transitions,omitempty"`
}

// LoadState reads the state file; a missing file is a fresh state. A damaged
// one is reported but does not stop the cycle: it starts from a fresh state.
func LoadState(path string) (ServiceState, error) {
	st := ServiceState{State: StateUnknown}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read service state: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return ServiceState{State: StateUnknown}, fmt.Errorf("service state %s is damaged (starting afresh): %w", path, err)
	}
	if st.State == "" {
		st.State = StateUnknown
	}
	return st, nil
}

// SaveState writes the state file atomically and durably.
func SaveState(path string, st ServiceState) error { return saveState(path, st, true) }

// saveState writes the state file; durable=false skips the fsyncs, for a
// healthy cycle that changed nothing worth keeping across a power loss.
func saveState(path string, st ServiceState, durable bool) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if !durable {
		return fsutil.ReplaceFile(path, append(b, '\n'), 0o600)
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

// moveTo changes the state and keeps the last transitions for snapshots.
func (st *ServiceState) moveTo(to, why string, now time.Time) {
	if st.State == to {
		return
	}
	st.Transitions = append(st.Transitions, snapshot.Transition{At: now.UTC(), From: st.State, To: to, Why: why})
	if n := len(st.Transitions); n > maxTransitions {
		st.Transitions = append([]snapshot.Transition(nil), st.Transitions[n-maxTransitions:]...)
	}
	st.State = to
}

// backoffFor is backoff_initial doubled for every further consecutive
// failure, capped at backoff_max.
func backoffFor(failures int, initial, max time.Duration) time.Duration {
	if failures <= 0 || initial <= 0 {
		return 0
	}
	d := initial
	for i := 1; i < failures; i++ {
		d *= 2
		if d >= max || d <= 0 {
			return max
		}
	}
	if d > max {
		return max
	}
	return d
}
