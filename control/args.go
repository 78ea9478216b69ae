package control

import (
	"encoding/json"
	"time"

	"svcctl/state"
)

// What each kind carries, both ways: one definition for the command that
// asks and the agent that answers.

// ReloadArgs are a reload's options.
type ReloadArgs struct {
	// KeepRemoved: leave running the instances of services the new file no
	// longer has (by default the reload stops them, identity-checked).
	KeepRemoved bool `json:"keep_removed,omitempty"`
	// AllowMissingInclude: take the file even when an include pattern that
	// matched files when the config in force was loaded matches none now
	// (refused without it: a half-finished deploy must not read as
	// removals).
	AllowMissingInclude bool `json:"allow_missing_include,omitempty"`
}

// ReloadDone is a reload's answer: the agent's row for it.
type ReloadDone struct {
	Outcome string          `json:"outcome"`
	Reason  string          `json:"reason"`
	Detail  json.RawMessage `json:"detail"`
}

// RunArgs name the job to run now.
type RunArgs struct {
	Job string `json:"job"`
}

// RunAccepted is a run request's first answer: the run began.
type RunAccepted struct {
	RunID int64 `json:"run_id"` // negative: provisional, the row waits in the agent's queue
	// Stream is the file the run's output is copied to as it comes
	// (StreamPath), up to StreamMax bytes.
	Stream    string `json:"stream"`
	StreamMax int64  `json:"stream_max"`
	// Paused: the job is paused; its slots stay paused, this run goes ahead.
	Paused string `json:"paused,omitempty"`
}

// RunFinished is a run request's last answer: the run's verdict.
type RunFinished struct {
	RunID      int64          `json:"run_id"`
	Outcome    string         `json:"outcome"`
	Reason     string         `json:"reason"`
	ExitStatus int            `json:"exit_status"` // what `svc-ctl run` exits with (as `exec`)
	Duration   time.Duration  `json:"duration_ns"`
	Detail     map[string]any `json:"detail,omitempty"`
}

// InterruptArgs name the run request whose run is to end.
type InterruptArgs struct {
	Request string `json:"request"`
	Why     string `json:"why,omitempty"`
}

// The verbs that act on services (and jobs, for pause and resume), handed
// to the running agent when the command cannot act itself: the config
// file does not load, and the agent still runs the one it loaded before.
const (
	KindStart   Kind = "start"
	KindRestart Kind = "restart"
	KindStop    Kind = "stop"
	KindPause   Kind = "pause"
	KindResume  Kind = "resume"
)

// ActArgs name what a start, restart, stop, pause or resume acts on, as
// the verb's own arguments do. The answer is the verb's results, as the
// command prints them: []watchdog.Result (start, restart),
// []watchdog.StopReport (stop), []PauseDone (pause),
// []watchdog.ResumeReport (resume).
type ActArgs struct {
	Names []string      `json:"names,omitempty"`
	All   bool          `json:"all,omitempty"`
	For   time.Duration `json:"for_ns,omitempty"` // pause
	Why   string        `json:"reason,omitempty"` // pause
}

// PauseDone is one pause as the agent wrote it.
type PauseDone struct {
	Name  string      `json:"name"`
	Pause state.Pause `json:"pause"`
}
