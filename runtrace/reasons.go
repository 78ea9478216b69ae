package runtrace

// Outcomes of a run. A row starts as OutcomeRunning and is finished once.
const (
	OutcomeRunning = "running"
	OutcomeOK      = "ok"
	OutcomeSkipped = "skipped"
	OutcomeFailed  = "failed"
)

// Triggers: why a run started.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
	TriggerEvent    = "event"
	TriggerCatchUp  = "catch-up"
	TriggerStartup  = "startup"
)

// Reason codes: the closed list of DESIGN.md. docs/runbook.md explains each.
const (
	ReasonAlreadyRunning = "already-running"
	ReasonStarted        = "started"
	ReasonCompleted      = "completed"
	ReasonResumed        = "resumed"

	ReasonPaused   = "paused"
	ReasonLockHeld = "lock-held"
	ReasonGivenUp  = "given-up"
	ReasonBackoff  = "backoff"
	ReasonOverlap  = "overlap"
	ReasonDraining = "draining"

	ReasonStartFailed      = "start-failed"
	ReasonSpawnError       = "spawn-error"
	ReasonExitNonzero      = "exit-nonzero"
	ReasonTimeout          = "timeout"
	ReasonDependencyFailed = "dependency-failed"
	ReasonAbandoned        = "abandoned"
	ReasonInterrupted      = "interrupted"
	ReasonPanic            = "panic"
)

// Reasons maps each outcome to the reason codes it accepts.
var Reasons = map[string][]string{
	OutcomeOK:      {ReasonAlreadyRunning, ReasonStarted, ReasonCompleted, ReasonResumed},
	OutcomeSkipped: {ReasonPaused, ReasonLockHeld, ReasonGivenUp, ReasonBackoff, ReasonOverlap, ReasonDraining},
	OutcomeFailed: {ReasonStartFailed, ReasonSpawnError, ReasonExitNonzero, ReasonTimeout,
		ReasonDependencyFailed, ReasonAbandoned, ReasonInterrupted, ReasonPanic},
}

// ValidReason reports whether reason is allowed with outcome. A running row
// has no reason; ok rows must carry one of the ok reasons.
func ValidReason(outcome, reason string) bool {
	if outcome == OutcomeRunning {
		return reason == ""
	}
	for _, r := range Reasons[outcome] {
		if r == reason {
			return true
		}
	}
	return false
}

// Triggers is the closed list of triggers.
var Triggers = []string{TriggerSchedule, TriggerManual, TriggerEvent, TriggerCatchUp, TriggerStartup}

// ValidTrigger reports whether t is a known trigger.
func ValidTrigger(t string) bool {
	for _, x := range Triggers {
		if x == t {
			return true
		}
	}
	return false
}
