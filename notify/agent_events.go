package notify

import (
	"encoding/json"
	"fmt"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// Missing is the job.missing event of one slot of job j that has no row
// past its grace. Its id is derived from the host, job and slot, so the same
// slot found again (after a restart, by an overlapping check) is queued once.
func (d *Deriver) Missing(j *config.Job, slot, now time.Time) runtrace.OutboxEvent {
	loc := j.Location
	if loc == nil {
		loc = d.loc
	}
	local := slot.In(loc)
	e := Event{
		ID: stableID("job.missing", d.host, j.Name, slot.UTC().Format(time.RFC3339)), Kind: KindJobMissing,
		Subject: runtrace.JobID(j.Name), Job: j.Name, Host: d.host, Slot: local.Format(time.RFC3339),
		Message: fmt.Sprintf("job %s on %s did not run at its %s slot (grace %s): no run was recorded",
			j.Name, d.host, local.Format("2006-01-02 15:04 MST"), config.FormatDuration(j.Grace)),
		Detail: fmt.Sprintf("schedule %q in %s; `svc-ctl why %s` says what to look at", j.Schedule, j.Timezone, j.Name),
	}
	if j.External {
		e.Detail += "; this job is run by another scheduler through `svc-ctl exec`"
	}
	e.stamp(now, d.loc)
	return d.outbox(&e)
}

// missingMany is one job.missing event standing for several slots (an
// agent that was down for a day does not send a message per slot).
func (d *Deriver) missingMany(j *config.Job, slots []time.Time, now time.Time) runtrace.OutboxEvent {
	last := slots[len(slots)-1]
	ev := d.Missing(j, last, now)
	var e Event
	_ = json.Unmarshal(ev.Payload, &e)
	loc := j.Location
	if loc == nil {
		loc = d.loc
	}
	layout := "2006-01-02 15:04 MST"
	if last.Sub(slots[0]) < time.Hour {
		layout = "2006-01-02 15:04:05 MST" // slots seconds apart (@every 15s) would read "08:00 to 08:00"
	}
	e.Message = fmt.Sprintf("job %s on %s did not run at %d slots from %s to %s (grace %s): no run was recorded",
		j.Name, d.host, len(slots), slots[0].In(loc).Format(layout),
		last.In(loc).Format(layout), config.FormatDuration(j.Grace))
	ev.Payload = e.JSON()
	return ev
}

// Agent is an event about the agent itself, for the outbox: see AgentEvent.
func (d *Deriver) Agent(msg, detail string, now time.Time) runtrace.OutboxEvent {
	e := d.AgentEvent(msg, detail, now)
	return d.outbox(&e)
}

// AgentEvent is an event about the agent itself: crash.log found at start,
// the ledger unavailable, verify FAIL at start, a reload refused, events
// dropped undelivered. msg and detail are redacted here.
func (d *Deriver) AgentEvent(msg, detail string, now time.Time) Event {
	e := Event{ID: d.newID(), Kind: KindAgent, Subject: runtrace.AgentID, Host: d.host,
		Message: d.redactor().String(oneLine(fmt.Sprintf("svc-ctl on %s: %s", d.host, msg)))}
	if detail != "" {
		e.Detail = d.redactor().String(detail)
		if len(e.Detail) > maxDetail {
			e.Detail = "…" + e.Detail[len(e.Detail)-maxDetail:]
		}
	}
	e.stamp(now, d.loc)
	return e
}
