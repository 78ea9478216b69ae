package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// BenchmarkOTLPDay measures what one machine sends in a quiet day with the
// defaults (rows = "notable", gzip, protobuf, metrics every 60 s): 5
// services at a 10-minute interval (144 routine cycles each, counted by the
// metrics, not sent as rows) and 10 hourly jobs (240 runs, each a record).
// Rows go through the real exporter to a loopback receiver that counts the
// bytes of each request as sent (body and HTTP header; TLS and the answers
// not counted); the metrics are one real export of that day's point set,
// times 1440. docs/fleet.md quotes the figure.
//
//	go test ./notify -run '^$' -bench OTLPDay -benchtime 1x
func BenchmarkOTLPDay(b *testing.B) {
	for _, rows := range []string{config.OTLPRowsNotable, config.OTLPRowsAll} {
		b.Run("rows="+rows, func(b *testing.B) {
			for range b.N {
				rowBytes, metrics, reqs := otlpDay(b, rows)
				b.ReportMetric(float64(rowBytes), "row-bytes/day")
				b.ReportMetric(float64(metrics), "metric-bytes/day")
				b.ReportMetric(float64(rowBytes+metrics), "bytes/day")
				b.ReportMetric(float64(reqs), "row-requests/day")
			}
		})
	}
}

func otlpDay(b *testing.B, rows string) (rowBytes, metricBytes, requests int64) {
	var bytes, n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		head := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len("Host: ") + len(r.Host) + 2 + 2
		for k, vs := range r.Header {
			for _, v := range vs {
				head += len(k) + 2 + len(v) + 2
			}
		}
		bytes.Add(int64(len(body) + head))
		n.Add(1)
	}))
	defer srv.Close()
	SetIdentity(Identity{Version: "1.0.0", InstanceID: "0b5f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b", HostName: "ws-07", HostID: "3d1219c7c4c5404aaa1f6d2a48adfda4"})
	n0 := otlpConf(srv.URL, rows)
	n0.OTLP.MetricsEvery = time.Minute
	cfg := &config.Config{Notify: []config.Notify{n0}}
	for i := range 10 {
		cfg.Jobs = append(cfg.Jobs, config.Job{Name: fmt.Sprintf("job%02d", i), Timezone: "UTC", Location: time.UTC, Schedule: "@hourly"})
	}
	store := openStoreB(b)
	d := NewDeriver(cfg, "ws-07", time.UTC)
	clk := newClock()
	s := NewSender(cfg, store, Options{Owner: "a", Log: quiet, Now: clk.Now})
	detail := json.RawMessage(`{"exit_code":0,"output_tail":["fetched 1240 records","wrote /srv/data/pull.json (2.1 MB)","done in 41s"]}`)
	for tick := range 144 {
		at := clk.Now()
		for i := range 5 {
			if _, err := store.RecordEmit(ctxb, runtrace.Run{JobID: fmt.Sprintf("watchdog:svc%d", i), Trigger: runtrace.TriggerSchedule,
				StartedAt: at, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonAlreadyRunning, Detail: json.RawMessage(`{"state":"healthy"}`)}, d.Emit); err != nil {
				b.Fatal(err)
			}
		}
		if tick%6 == 0 {
			for _, j := range cfg.Jobs {
				if _, err := store.RecordEmit(ctxb, runtrace.Run{JobID: runtrace.JobID(j.Name), Trigger: runtrace.TriggerSchedule, ScheduledAt: at,
					StartedAt: at, FinishedAt: at.Add(41 * time.Second), Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted, Detail: detail}, d.Emit); err != nil {
					b.Fatal(err)
				}
			}
		}
		s.Drain(ctxb)
		clk.Add(10 * time.Minute)
	}
	rowBytes, requests = bytes.Load(), n.Load()

	// One metrics export of the day's points, as the agent builds them.
	var points []MetricPoint
	for i := range 5 {
		points = append(points,
			MetricPoint{Name: "svcctl.cycles", Unit: "{cycle}", Counter: true, Description: "Watchdog cycles by outcome and reason.", Value: 144,
				Attrs: map[string]string{"svcctl.service": fmt.Sprintf("svc%d", i), "svcctl.outcome": "ok", "svcctl.reason": "already-running"}},
			MetricPoint{Name: "svcctl.service.state", Unit: "1", Description: "The state of each service (1 for the current one).", Value: 1,
				Attrs: map[string]string{"svcctl.service": fmt.Sprintf("svc%d", i), "svcctl.state": "healthy"}})
	}
	for _, j := range cfg.Jobs {
		points = append(points, MetricPoint{Name: "svcctl.job.runs", Unit: "{run}", Counter: true, Description: "Job runs by outcome and reason.", Value: 24,
			Attrs: map[string]string{"svcctl.job": j.Name, "svcctl.outcome": "ok", "svcctl.reason": "completed"}})
	}
	x := s.chans[0].exp
	points = append(points, x.points(ctxb)...)
	points = append(points,
		MetricPoint{Name: "svcctl.ledger.up", Unit: "1", Description: "Whether run_trace takes writes.", Value: 1},
		MetricPoint{Name: "svcctl.ledger.pending_rows", Unit: "{row}", Description: "Rows waiting in memory to be written to run_trace."},
		MetricPoint{Name: "svcctl.ledger.rows_lost", Unit: "{row}", Counter: true, Description: "Rows dropped because the queue of waiting rows was full."})
	before := bytes.Load()
	if _, err := x.ch.export(context.Background(), "/v1/metrics", metricsData(x.ch, points, t0, clk.Now()), "rejectedDataPoints"); err != nil {
		b.Fatal(err)
	}
	return rowBytes, (bytes.Load() - before) * 1440, requests
}

func openStoreB(b *testing.B) *runtrace.Store {
	s, err := runtrace.Open(b.TempDir()+"/svc-ctl.db", runtrace.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
