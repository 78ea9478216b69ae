package watchdog

import (
	"strings"

	"svcctl/runtrace"
	"svcctl/snapshot"
	"svcctl/state"
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

// Who a restart is by: the row's detail `restart_by`, which status,
// --json, /metrics, the runbook's SQL and the status page all count by.
const (
	RestartByWatchdog = "watchdog" // a crash, a hang, a resource limit: the watchdog replaced it
	RestartByPerson   = "person"   // svc-ctl restart, the page's restart, a start of a crashed service
	RestartByReload   = "reload"   // a reload changed what the instance runs
)

// restartBy says whose restart this cycle's start is, or "" when it is not
// a restart. One definition (docs/runbook.md, "What counts as a restart"):
// a restart replaces an instance that had been healthy. A first start (no
// instance recorded), a start after a person's stop, and the retry after a
// start that failed (its instance never passed the health check) are
// starts, not restarts. Read before the old instance is stopped.
func (c *cycle) restartBy() string {
	switch {
	case c.prevState == state.Stopped:
		return "" // a person stopped it; starting it again is no restart
	case c.st.InstanceHealthyAt.IsZero():
		return "" // nothing that served it ever passed: a first start, or a failed start's retry
	case c.req.Reload:
		return RestartByReload
	case c.req.Manual:
		return RestartByPerson
	}
	return RestartByWatchdog
}
