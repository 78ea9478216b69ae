package notify

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"svcctl/runtrace"
)

// eventRecord is an event as a log record: body the message, severity by
// what it says, every field an svcctl.* attribute.
func eventRecord(e *Event, observed time.Time) *logspb.LogRecord {
	sev, text := logspb.SeverityNumber_SEVERITY_NUMBER_INFO, "INFO"
	switch {
	case e.Problem() && e.High():
		sev, text = logspb.SeverityNumber_SEVERITY_NUMBER_ERROR, "ERROR"
	case e.Problem():
		sev, text = logspb.SeverityNumber_SEVERITY_NUMBER_WARN, "WARN"
	}
	attrs := []*commonpb.KeyValue{
		str("svcctl.record", "event"),
		str("svcctl.event_id", e.ID),
		str("svcctl.event", e.Kind),
		str("svcctl.subject", e.Subject),
		str("svcctl.service", e.Service),
		str("svcctl.job", e.Job),
		str("svcctl.trigger", string(e.Trigger)),
		str("svcctl.outcome", string(e.Outcome)),
		str("svcctl.reason", string(e.Reason)),
		str("svcctl.cause", e.Cause),
		str("svcctl.slot", e.Slot),
		str("svcctl.detail", e.Detail),
	}
	if e.RunID != 0 {
		attrs = append(attrs, num("svcctl.run_id", e.RunID))
	}
	if e.HeldBack > 0 {
		attrs = append(attrs, num("svcctl.held_back", int64(e.HeldBack)))
	}
	return &logspb.LogRecord{
		TimeUnixNano: unixNano(e.Time), ObservedTimeUnixNano: unixNano(observed),
		SeverityNumber: sev, SeverityText: text, EventName: "svcctl." + e.Kind,
		Body: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: e.Text()}}, Attributes: nonEmptyAttrs(attrs),
	}
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func num(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

// nonEmptyAttrs leaves out string attributes without a value: a job's
// record has no svcctl.service, and "" would read as a value.
func nonEmptyAttrs(kvs []*commonpb.KeyValue) []*commonpb.KeyValue {
	out := kvs[:0]
	for _, kv := range kvs {
		if s, ok := kv.Value.Value.(*commonpb.AnyValue_StringValue); ok && s.StringValue == "" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// runRecord is a finished run as a log record.
func (x *otlpExporter) runRecord(r *runtrace.Run, observed time.Time) *logspb.LogRecord {
	var det runDetail
	_ = json.Unmarshal(r.Detail, &det)
	kind, name := runtrace.SplitID(r.JobID)
	sev, text := logspb.SeverityNumber_SEVERITY_NUMBER_INFO, "INFO"
	switch r.Outcome {
	case runtrace.OutcomeFailed:
		sev, text = logspb.SeverityNumber_SEVERITY_NUMBER_ERROR, "ERROR"
	case runtrace.OutcomeSkipped:
		sev, text = logspb.SeverityNumber_SEVERITY_NUMBER_WARN, "WARN"
	}
	subject := name
	switch kind {
	case runtrace.KindJob:
		subject = "job " + name
	case runtrace.KindWatchdog:
		subject = "service " + name
	default:
		subject = "svc-ctl"
	}
	body := fmt.Sprintf("%s: %s", subject, r.Outcome)
	if r.Reason != "" {
		body += "/" + string(r.Reason)
	}
	if w := whyOf(x.red, &det, ""); w != "" {
		body += ": " + w
	}
	attrs := []*commonpb.KeyValue{
		str("svcctl.record", "run"),
		num("svcctl.run_id", r.ID),
		str("svcctl.subject", r.JobID),
		str("svcctl.trigger", string(r.Trigger)),
		str("svcctl.outcome", string(r.Outcome)),
		str("svcctl.reason", string(r.Reason)),
		str("svcctl.cause", x.red.String(oneLine(det.Cause))),
		str("svcctl.restart_by", runtrace.RestartBy(*r)),
		num("svcctl.duration_ms", r.Duration.Milliseconds()),
		str("svcctl.started_at", r.StartedAt.UTC().Format(time.RFC3339Nano)),
		str("svcctl.detail", detailOf(x.red, &det)),
	}
	switch kind {
	case runtrace.KindJob:
		attrs = append(attrs, str("svcctl.job", name))
	case runtrace.KindWatchdog:
		attrs = append(attrs, str("svcctl.service", name))
	}
	if !r.ScheduledAt.IsZero() {
		attrs = append(attrs, str("svcctl.slot", r.ScheduledAt.UTC().Format(time.RFC3339)))
	}
	return &logspb.LogRecord{
		TimeUnixNano: unixNano(r.FinishedAt), ObservedTimeUnixNano: unixNano(observed),
		SeverityNumber: sev, SeverityText: text, EventName: "svcctl.run",
		Body:       &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: strings.TrimSpace(body)}},
		Attributes: nonEmptyAttrs(attrs),
	}
}
