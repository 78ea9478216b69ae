package watchdog

import (
	"svcctl/internal/redact"
	"svcctl/probe"
	"svcctl/snapshot"
)

// The one rule set (internal/redact) is built once per supervisor from
// every secret of its configuration (env, env_file, notify URLs and tokens,
// pings) and used wherever a cycle writes: the run_trace row and detail,
// watchdog.last.json, the snapshot and its log tail, the logs.

func (c *cycle) redactor() *redact.Redactor { return c.s.red.Load() }

// stamp gives the service's checks its user and the redactor.
func (c *cycle) stamp(specs []probe.Spec) []probe.Spec {
	return probe.Stamp(specs, c.svc.RunAs, c.redactor())
}

// Redactor is the supervisor's redactor, for what runs beside its cycles
// (the agent's jobs, `svc-ctl exec`, the log handler) and must scrub the
// same values.
func (s *Supervisor) Redactor() *redact.Redactor { return s.red.Load() }

// redactDetail scrubs a cycle's detail, keeping its type. A detail that
// cannot go through the rules is not written at all: an empty Detail, never
// the unscrubbed one.
func redactDetail(r *redact.Redactor, d Detail) Detail {
	out, ok := redact.Same(r, d)
	if !ok {
		return Detail{}
	}
	return out
}

// redactEntry scrubs a snapshot entry's structured parts (the log tail is
// scrubbed line by line by snapshot.Prepare with the same rules).
func redactEntry(r *redact.Redactor, e snapshot.Entry) snapshot.Entry {
	e.Probes = r.Value(e.Probes)
	if e.Process != nil {
		e.Process = r.Value(e.Process)
	}
	return e
}
