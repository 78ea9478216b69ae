package metrics

import (
	"encoding/json"
	"testing"
	"time"

	"svcctl/runtrace"
)

// The otlp channel's metrics count restarts as /metrics does: by whom, and
// a first start not at all.
func TestMetricPointsCountRestartsByWhom(t *testing.T) {
	m := New(time.Now(), nil)
	row := func(reason runtrace.Reason, detail string) runtrace.Run {
		return runtrace.Run{JobID: "watchdog:web", Outcome: runtrace.OutcomeOK, Reason: reason, Detail: json.RawMessage(detail)}
	}
	m.RunFinished(row(runtrace.ReasonStarted, `{"state":"healthy"}`)) // the first start
	m.RunFinished(row(runtrace.ReasonRestarted, `{"state":"healthy","restart_by":"watchdog"}`))
	m.RunFinished(row(runtrace.ReasonRestarted, `{"state":"healthy","restart_by":"person"}`))
	m.RunFinished(row(runtrace.ReasonRestarted, `{"state":"healthy","restart_by":"watchdog"}`))
	got := map[string]int64{}
	for _, p := range m.Points() {
		if p.Name != "svcctl.service.restarts" {
			continue
		}
		if !p.Counter || p.Attrs["svcctl.service"] != "web" {
			t.Errorf("point %+v: want a counter of service web", p)
		}
		got[p.Attrs["svcctl.restart_by"]] = p.Value
	}
	if len(got) != 2 || got["watchdog"] != 2 || got["person"] != 1 {
		t.Fatalf("svcctl.service.restarts by whom = %v, want watchdog 2, person 1 (the first start none)", got)
	}
}
