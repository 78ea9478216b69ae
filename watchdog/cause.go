package watchdog

import (
	"strings"

	"svcctl/runtrace"
	"svcctl/snapshot"
)

// A run's cause says why the watchdog (or a person) stopped and started a
// service: its kind, then its words. It is the row's detail `cause`, the
// CAUSE column of `svc-ctl runs`, the snapshot's reason and the why of a
// service.down event:
//
//	unhealthy: http http://127.0.0.1:8789/health: connection refused
//	exited: killed by SIGKILL
//	resource-limit: memory 812 MiB > 500 MiB for 5m
//	manual
//	wake: tcp 127.0.0.1:8789: connection refused
//
// The kinds are snapshot's Restart* constants: one list.
const (
	CauseUnhealthy     = snapshot.RestartUnhealthy
	CauseExited        = snapshot.RestartExited
	CauseResourceLimit = snapshot.RestartResourceLimit
	CauseManual        = snapshot.RestartManual
	CauseWake          = snapshot.RestartWake
)

// Causes is the closed list of cause kinds, in the order the runbook explains them.
var Causes = []string{CauseUnhealthy, CauseExited, CauseResourceLimit, CauseManual, CauseWake}

// cause is why this cycle restarts its service: what the request says (an
// exit, a limit, a person), else the health verdict that failed, named a
// wake when the cycle is the one that runs after the host slept.
func (c *cycle) cause() string {
	kind, words := c.req.Cause, c.req.Why
	switch {
	case c.req.Restart:
		kind, words = CauseManual, ""
	case kind != "":
	case c.req.Replace:
		kind = CauseManual
	case c.req.Trigger == runtrace.TriggerCatchUp:
		kind, words = CauseWake, c.healthWords()
	default:
		kind, words = CauseUnhealthy, c.healthWords()
	}
	if words == "" {
		return kind
	}
	if kind == CauseExited {
		words = strings.TrimPrefix(words, "exited ") // "exited: with code 3", not "exited: exited with code 3"
	}
	return kind + ": " + words
}
