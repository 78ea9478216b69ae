package state

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
	Unknown   = "unknown"
	Healthy   = "healthy"
	Unhealthy = "unhealthy"
	Starting  = "starting"
	Backoff   = "backoff"
	GivenUp   = "given-up"
	Paused    = "paused"
	// Stopped is a person's `svc-ctl stop`: paused with reason "stopped"
	// and its instance stopped. Nothing checks it until it is started.
	Stopped = "stopped"
)

// All is every service state, in the order metrics list them.
var All = []string{Unknown, Healthy, Unhealthy, Starting, Backoff, GivenUp, Paused, Stopped}

// Held reports whether st is a state a person chose (paused or stopped):
// the watchdog holds off, and nothing is wrong.
func Held(st string) bool { return st == Paused || st == Stopped }

const maxTransitions = 12

// Service is what the watchdog's cycle remembers between runs, persisted in
// services/<name>/state.json so the failure counter, backoff and given-up
// survive an agent restart. It lives in a plain file, not in the database:
// supervision must keep working when the ledger is damaged.
type Service struct {
	State        string    `json:"state"`
	Failures     int       `json:"consecutive_failures"`
	BackoffUntil time.Time `json:"backoff_until,omitzero"`
	GivenUpAt    time.Time `json:"given_up_at,omitzero"`
	LastHealthy  time.Time `json:"last_healthy,omitzero"`
	// InstanceHealthyAt is when what serves the service now last passed its
	// health check: zeroed when an instance is spawned (or stopped by a
	// person), so that replacing it counts as a restart only if it had
	// been healthy (watchdog/cause.go, restartBy).
	InstanceHealthyAt time.Time      `json:"instance_healthy_at,omitzero"`
	LastRestart       time.Time      `json:"last_restart,omitzero"`
	LastStartTry      time.Time      `json:"last_start_try,omitzero"`
	LastCycle         time.Time      `json:"last_cycle,omitzero"`
	LastProbe         []probe.Result `json:"last_probe,omitempty"`
	// LastProbeAt is when LastProbe was taken. A cycle that does not probe
	// (paused, backoff, lock held) moves LastCycle, never this: status
	// shows a verdict with its own age, not the age of the last cycle.
	LastProbeAt time.Time `json:"last_probe_at,omitzero"`
	// LimitRestarts counts resource-limit restarts in a row (a calm spell
	// starts it over); the next one waits for its backoff after
	// LastLimitRestart.
	LimitRestarts    int       `json:"limit_restarts,omitempty"`
	LastLimitRestart time.Time `json:"last_limit_restart,omitzero"`
	// AnsweredBy names who answered LastProbe when it passed but no process
	// of the service's recorded instance lived: a stranger on its health
	// port ("port 8789 is held by pid 9119 /usr/bin/python3 (user bob), not
	// this service's instance"). Empty when the service's own instance
	// answered, or nothing did.
	AnsweredBy string `json:"answered_by,omitempty"`
	// RecentStarts are the watchdog's own starts of the service within its
	// loop_window, oldest first: a crash loop is loop_restarts of them.
	RecentStarts []time.Time `json:"recent_starts,omitempty"`
	// LastFailure is the message of the last failed start ("crash loop:
	// down again 502ms after its last start ..."): a given-up service says
	// why it was given up, not only what its probe says now.
	LastFailure string `json:"last_failure,omitempty"`
	// Log and User are where the last instance's output went (the log's
	// path, as the config resolved it) and the user it ran as (as written,
	// "" the agent's): the record a privileged reader takes a service's
	// log from when the config it was handed is not one it may trust.
	Log         string                `json:"log,omitempty"`
	User        string                `json:"user,omitempty"`
	Transitions []snapshot.Transition `json:"transitions,omitempty"`
}

// LoadService reads the state file; a missing file is a fresh state. A
// damaged one is reported but does not stop the cycle: it starts from a fresh
// state.
func LoadService(path string) (Service, error) {
	st := Service{State: Unknown}
	b, err := fsutil.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read service state: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return Service{State: Unknown}, fmt.Errorf("service state %s is damaged (starting afresh): %w", path, err)
	}
	if st.State == "" {
		st.State = Unknown
	}
	return st, nil
}

// SaveService writes the state file atomically. durable=false skips the
// fsyncs, for a healthy cycle that changed nothing worth keeping across a
// power loss.
func SaveService(path string, st Service, durable bool) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if !durable {
		return fsutil.ReplaceFile(path, append(b, '\n'), 0o600)
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

// MoveTo changes the state and keeps the last transitions for snapshots.
func (st *Service) MoveTo(to, why string, now time.Time) {
	if st.State == to {
		return
	}
	st.Transitions = append(st.Transitions, snapshot.Transition{At: now.UTC(), From: st.State, To: to, Why: why})
	if n := len(st.Transitions); n > maxTransitions {
		st.Transitions = append([]snapshot.Transition(nil), st.Transitions[n-maxTransitions:]...)
	}
	st.State = to
}
