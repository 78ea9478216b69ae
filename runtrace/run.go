package runtrace

import (
	"encoding/json"
	"fmt"
	"time"
)

// Run is one row of run_trace. Zero times are NULL in the database and null
// in JSON; all times are UTC.
type Run struct {
	ID          int64
	JobID       string // watchdog:NAME | job:NAME | agent
	Trigger     Trigger
	ScheduledAt time.Time // the slot a job run serves; zero for watchdog cycles
	StartedAt   time.Time
	FinishedAt  time.Time // zero while running
	Outcome     Outcome
	Reason      Reason
	Duration    time.Duration // finished - started, millisecond precision
	Detail      json.RawMessage
}

// jsonTime is RFC 3339 in UTC with milliseconds when they are not zero.
const jsonTime = "2006-01-02T15:04:05.999Z07:00"

type runJSON struct {
	ID          int64           `json:"id"`
	JobID       string          `json:"job_id"`
	Trigger     Trigger         `json:"trigger"`
	ScheduledAt *string         `json:"scheduled_at"`
	StartedAt   *string         `json:"started_at"`
	FinishedAt  *string         `json:"finished_at"`
	Outcome     Outcome         `json:"outcome"`
	Reason      Reason          `json:"reason,omitempty"`
	DurationMS  *int64          `json:"duration_ms"`
	Detail      json.RawMessage `json:"detail,omitempty"`
}

// MarshalJSON writes snake_case keys, RFC 3339 UTC times and duration_ms;
// unknown times and the duration of an unfinished run are null.
func (r Run) MarshalJSON() ([]byte, error) {
	j := runJSON{
		ID: r.ID, JobID: r.JobID, Trigger: r.Trigger, Outcome: r.Outcome, Reason: r.Reason,
		ScheduledAt: fmtTime(r.ScheduledAt), StartedAt: fmtTime(r.StartedAt), FinishedAt: fmtTime(r.FinishedAt),
		Detail: r.Detail,
	}
	if !r.FinishedAt.IsZero() {
		ms := r.Duration.Milliseconds()
		j.DurationMS = &ms
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Run) UnmarshalJSON(b []byte) error {
	var j runJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	out := Run{ID: j.ID, JobID: j.JobID, Trigger: j.Trigger, Outcome: j.Outcome, Reason: j.Reason, Detail: j.Detail}
	var err error
	for _, f := range []struct {
		dst  *time.Time
		src  *string
		name string
	}{{&out.ScheduledAt, j.ScheduledAt, "scheduled_at"}, {&out.StartedAt, j.StartedAt, "started_at"},
		{&out.FinishedAt, j.FinishedAt, "finished_at"}} {
		if *f.dst, err = parseTime(f.src); err != nil {
			return fmt.Errorf("run %d: %s: %w", j.ID, f.name, err)
		}
	}
	if j.DurationMS != nil {
		out.Duration = time.Duration(*j.DurationMS) * time.Millisecond
	}
	*r = out
	return nil
}

func fmtTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(jsonTime)
	return &s
}

func parseTime(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	return t.UTC(), err
}

// toMS and fromMS convert between time.Time and the stored unix ms; the zero
// time is NULL.
func toMS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMS(v *int64) time.Time {
	if v == nil {
		return time.Time{}
	}
	return time.UnixMilli(*v).UTC()
}

// Verdict is the outcome and reason as people read them: "failed/timeout",
// "running".
func (r Run) Verdict() string {
	if r.Reason == "" {
		return string(r.Outcome)
	}
	return string(r.Outcome) + "/" + string(r.Reason)
}

// nullString stores an empty string as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
