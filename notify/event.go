package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"svcctl/config"
	"svcctl/runtrace"
)

// Event kinds (config.EventKinds is the closed list `on` accepts).
const (
	KindServiceDown      = config.EventServiceDown
	KindServiceGivenUp   = config.EventServiceGivenUp
	KindServiceRecovered = config.EventServiceRecovered
	KindJobFailed        = config.EventJobFailed
	KindJobRecovered     = config.EventJobRecovered
	KindJobSkipped       = config.EventJobSkipped
	KindJobMissing       = config.EventJobMissing
	KindAgent            = config.EventAgent
	// KindTest is what `svc-ctl notify test` sends; it is never queued.
	KindTest = "test"
)

// Event is one thing somebody should be told, as every channel receives it
// (webhook and command: this JSON; ntfy, healthchecks, desktop: Title and
// Text). ID is stable: it is the same on every retry, so a receiver can use
// it to drop duplicates (Idempotency-Key).
type Event struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Subject string `json:"subject"` // watchdog:NAME | job:NAME | agent
	Service string `json:"service,omitempty"`
	Job     string `json:"job,omitempty"`
	Host    string `json:"host"`
	// Time is when it happened, in UTC; LocalTime the same instant in the
	// host's zone, as the person at that host reads clocks.
	Time      time.Time        `json:"time"`
	LocalTime string           `json:"local_time"`
	RunID     int64            `json:"run_id,omitempty"`
	Trigger   runtrace.Trigger `json:"trigger,omitempty"`
	Slot      string           `json:"slot,omitempty"` // a job's scheduled slot (RFC 3339, the job's zone)
	Outcome   runtrace.Outcome `json:"outcome,omitempty"`
	Reason    runtrace.Reason  `json:"reason,omitempty"`
	Cause     string           `json:"cause,omitempty"`
	Message   string           `json:"message"`          // one line for people
	Detail    string           `json:"detail,omitempty"` // short, redacted: probe words, exit code, output tail
	// HeldBack is how many earlier events of this subject this message
	// stands for (min_interval); set at delivery.
	HeldBack int `json:"held_back,omitempty"`
}

// maxDetail caps an event's detail: it is read on a phone, not a log.
const maxDetail = 1500

// newID returns a fresh, time-ordered event id.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// idNamespace makes ids derived from content (a missing slot) svc-ctl's own.
var idNamespace = uuid.MustParse("6f1e2b8e-8d0c-4c59-9d3a-5b7c1f0e9a42")

// stableID derives an id from what the event is about, so raising the same
// fact twice (the same missing slot, after a restart) queues it once.
func stableID(parts ...string) string {
	return uuid.NewSHA1(idNamespace, []byte(strings.Join(parts, "\x00"))).String()
}

// stamp sets Time and LocalTime from t.
func (e *Event) stamp(t time.Time, loc *time.Location) {
	e.Time = t.UTC().Truncate(time.Millisecond)
	if loc == nil {
		loc = time.Local
	}
	e.LocalTime = t.In(loc).Format(time.RFC3339)
}

// Name is the service's or job's name, or "agent".
func (e *Event) Name() string {
	switch {
	case e.Service != "":
		return e.Service
	case e.Job != "":
		return e.Job
	}
	return "agent"
}

// Text is the message with what min_interval held back.
func (e *Event) Text() string {
	switch e.HeldBack {
	case 0:
		return e.Message
	case 1:
		return e.Message + " (1 more held back)"
	}
	return fmt.Sprintf("%s (%d more held back)", e.Message, e.HeldBack)
}

// Title is a short headline: "proxy down on ws-07".
func (e *Event) Title() string {
	what := map[string]string{
		KindServiceDown: "down", KindServiceGivenUp: "given up", KindServiceRecovered: "recovered",
		KindJobFailed: "failed", KindJobRecovered: "ok again", KindJobSkipped: "skipped", KindJobMissing: "missed its run",
		KindAgent: "agent", KindTest: "test",
	}[e.Kind]
	if e.Kind == KindAgent || e.Kind == KindTest {
		return fmt.Sprintf("svc-ctl %s on %s", what, e.Host)
	}
	return fmt.Sprintf("%s %s on %s", e.Name(), what, e.Host)
}

// High reports whether the event must not wait for a person to look:
// a service given up, a job that never ran, the agent itself.
func (e *Event) High() bool {
	return e.Kind == KindServiceGivenUp || e.Kind == KindJobMissing || e.Kind == KindAgent
}

// Problem reports whether the event says something is wrong (as opposed to
// a recovery or a test).
func (e *Event) Problem() bool {
	return e.Kind != KindServiceRecovered && e.Kind != KindJobRecovered && e.Kind != KindTest
}

// JSON is the event as webhook and command channels receive it.
func (e *Event) JSON() []byte {
	b, _ := json.Marshal(e) // every field marshals
	return b
}

// DecodeEvent reads an event as the outbox keeps it.
func DecodeEvent(b []byte) (Event, error) { return decodeEvent(b) }

func decodeEvent(b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("decode queued event: %w", err)
	}
	return e, nil
}

// TestEvent is what `svc-ctl notify test` sends through a channel.
func TestEvent(host string, now time.Time) Event {
	e := Event{ID: newID(), Kind: KindTest, Subject: "agent", Host: host,
		Message: fmt.Sprintf("test message from svc-ctl on %s: this channel works", host)}
	e.stamp(now, time.Local)
	return e
}
