package ui

import (
	"encoding/json"
	"strings"

	"svcctl/probe"
	"svcctl/runtrace"
)

// causeOf says why a restart happened, in the words of a row's `cause`
// (docs/runbook.md, "Causes": "exited: killed by SIGKILL", "unhealthy: http
// ...: connection refused", "manual", "wake: ..."): the row's detail.cause
// where the cycle wrote one, else the reason of the snapshot that cycle wrote
// before it stopped the old instance (the same words, older rows have only
// these), else what the trigger implies with the failed probe's words.
func causeOf(r runtrace.Run, snapReasons map[int64]string) string {
	var d struct {
		Cause string         `json:"cause"`
		Probe []probe.Result `json:"probe"`
	}
	json.Unmarshal(r.Detail, &d) // a detail that is not an object has no cause: fall through
	if d.Cause != "" {
		return d.Cause
	}
	kind := snapReasons[r.ID]
	if strings.Contains(kind, ":") {
		return kind // the snapshot has the words too
	}
	switch {
	case kind != "":
		// A bare kind ("unhealthy"): the words are the probe's.
	case r.Trigger == runtrace.TriggerEvent:
		return "exited"
	case r.Trigger == runtrace.TriggerManual:
		return "manual"
	case r.Trigger == runtrace.TriggerCatchUp:
		kind = "wake"
	default:
		kind = "unhealthy"
	}
	for _, p := range d.Probe {
		if !p.Healthy {
			return kind + ": " + p.Kind + ": " + p.Reason
		}
	}
	return kind
}

// isRestart: the row is a restart as status counts it (restart_by: an
// instance that had been healthy replaced); a first start is not one.
func isRestart(r runtrace.Run) bool {
	kind, _ := runtrace.SplitID(r.JobID)
	return kind == runtrace.KindWatchdog && runtrace.RestartBy(r) != ""
}
