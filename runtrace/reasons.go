package runtrace

import "strings"

// Outcome is a run's verdict. A row starts as OutcomeRunning and is finished
// once, as one of the other three.
type Outcome string

// Outcomes of a run.
const (
	OutcomeRunning Outcome = "running"
	OutcomeOK      Outcome = "ok"
	OutcomeSkipped Outcome = "skipped"
	OutcomeFailed  Outcome = "failed"
)

// Trigger says why a run started.
type Trigger string

// Triggers: why a run started.
const (
	TriggerSchedule Trigger = "schedule"
	TriggerManual   Trigger = "manual"
	TriggerEvent    Trigger = "event"
	TriggerCatchUp  Trigger = "catch-up"
	TriggerStartup  Trigger = "startup"
)

// Reason is a reason code, of a closed list: docs/runbook.md ("Reason codes")
// explains each, and reasons_doc_test.go holds the two together. A verdict's
// reason must belong to its outcome (Reasons).
type Reason string

// Reason codes.
const (
	ReasonAlreadyRunning Reason = "already-running"
	ReasonStarted        Reason = "started"
	ReasonRestarted      Reason = "restarted" // a person asked (svc-ctl restart): cause manual
	ReasonCompleted      Reason = "completed"
	ReasonResumed        Reason = "resumed"
	ReasonReloaded       Reason = "reloaded" // the agent took a new config (SIGHUP, svc-ctl reload)
	// ReasonStopped: an instance stopped on purpose and not started again
	// (a reload that removed its service; detail names the pid and how
	// each process ended).
	ReasonStopped Reason = "stopped"

	ReasonPaused   Reason = "paused"
	ReasonLockHeld Reason = "lock-held"
	ReasonGivenUp  Reason = "given-up"
	ReasonBackoff  Reason = "backoff"
	ReasonOverlap  Reason = "overlap"
	ReasonDraining Reason = "draining"

	ReasonStartFailed      Reason = "start-failed"
	ReasonSpawnError       Reason = "spawn-error"
	ReasonExitNonzero      Reason = "exit-nonzero"
	ReasonTimeout          Reason = "timeout"
	ReasonDependencyFailed Reason = "dependency-failed"
	ReasonAbandoned        Reason = "abandoned"
	ReasonInterrupted      Reason = "interrupted"
	ReasonPanic            Reason = "panic"
	// ReasonConfigInvalid: a reload refused the file; the config in force
	// stays (an agent row; detail lists the errors).
	ReasonConfigInvalid Reason = "config-invalid"
	// ReasonUndelivered: notification events were dropped from the outbox
	// undelivered after their retention (an agent row; detail counts them).
	ReasonUndelivered Reason = "undelivered"
	// ReasonRowsLost is an agent row: rows the ledger could not take and
	// that no queue or spill file kept (the count and the cause are in its
	// detail).
	ReasonRowsLost Reason = "rows-lost"
	// ReasonAgentDied is an agent row: the previous agent of the state dir
	// ended without a clean stop in this boot (killed or crashed); its
	// detail names its pid and last heartbeat.
	ReasonAgentDied Reason = "agent-died"
)

// Reasons maps each outcome to the reason codes it accepts.
var Reasons = map[Outcome][]Reason{
	OutcomeOK:      {ReasonAlreadyRunning, ReasonStarted, ReasonRestarted, ReasonCompleted, ReasonResumed, ReasonReloaded, ReasonStopped},
	OutcomeSkipped: {ReasonPaused, ReasonLockHeld, ReasonGivenUp, ReasonBackoff, ReasonOverlap, ReasonDraining},
	OutcomeFailed: {ReasonStartFailed, ReasonSpawnError, ReasonExitNonzero, ReasonTimeout,
		ReasonDependencyFailed, ReasonAbandoned, ReasonInterrupted, ReasonPanic, ReasonUndelivered, ReasonRowsLost,
		ReasonConfigInvalid, ReasonAgentDied},
}

// JobReasonPrefix begins the reason of a verdict a job reported itself
// through SVCCTL_RESULT: job.REASON, REASON being [a-z0-9-]{1,40}, the job's
// own word (docs/configuration.md, "A job's own verdict"). Such reasons go
// with skipped and failed only.
const JobReasonPrefix = "job."

// JobReason is the reason code of a job-reported verdict.
func JobReason(word string) Reason { return Reason(JobReasonPrefix + word) }

// JobReported reports whether r is a job-reported reason (job.REASON with a
// well-formed REASON).
func JobReported(r Reason) bool {
	w, ok := strings.CutPrefix(string(r), JobReasonPrefix)
	if !ok || len(w) == 0 || len(w) > 40 {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// ValidReason reports whether reason is allowed with outcome. A running row
// has no reason; ok rows must carry one of the ok reasons.
func ValidReason(outcome Outcome, reason Reason) bool {
	if outcome == OutcomeRunning {
		return reason == ""
	}
	if (outcome == OutcomeSkipped || outcome == OutcomeFailed) && JobReported(reason) {
		return true
	}
	for _, r := range Reasons[outcome] {
		if r == reason {
			return true
		}
	}
	return false
}

// KnownReason reports whether r is a reason code of any outcome (a
// job-reported one included).
func KnownReason(r Reason) bool {
	if JobReported(r) {
		return true
	}
	for _, rs := range Reasons {
		for _, x := range rs {
			if x == r {
				return true
			}
		}
	}
	return false
}

// Triggers is the closed list of triggers.
var Triggers = []Trigger{TriggerSchedule, TriggerManual, TriggerEvent, TriggerCatchUp, TriggerStartup}

// ValidTrigger reports whether t is a known trigger.
func ValidTrigger(t Trigger) bool {
	for _, x := range Triggers {
		if x == t {
			return true
		}
	}
	return false
}
