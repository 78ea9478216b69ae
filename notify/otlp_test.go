package notify

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"

	"svcctl/config"
	"svcctl/runtrace"
)

// collector is a loopback OTLP/HTTP receiver: it keeps every request it
// answers 200 (decompressed), and answer decides each one's status,
// headers and body.
type collector struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []request
	n      int
	answer func(n int, w http.ResponseWriter) (int, []byte)
}

func newCollector(t *testing.T, answer func(n int, w http.ResponseWriter) (int, []byte)) *collector {
	t.Helper()
	c := &collector{answer: answer}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Errorf("gzip: %v", err)
				w.WriteHeader(400)
				return
			}
			body, _ = io.ReadAll(zr)
		}
		c.mu.Lock()
		c.n++
		n := c.n
		c.mu.Unlock()
		code, ans := 200, []byte(nil)
		if c.answer != nil {
			code, ans = c.answer(n, w)
		}
		if code == 200 {
			c.mu.Lock()
			c.got = append(c.got, request{r.Method, r.URL.Path, r.Header.Clone(), body})
			c.mu.Unlock()
		}
		w.WriteHeader(code)
		w.Write(ans)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) requests() []request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]request(nil), c.got...)
}

// records decodes the protobuf log requests received, in order.
func (c *collector) records(t *testing.T) []*logspb.LogRecord {
	t.Helper()
	var out []*logspb.LogRecord
	for _, r := range c.requests() {
		if r.Path != "/v1/logs" {
			continue
		}
		var ld logspb.LogsData
		if err := proto.Unmarshal(r.Body, &ld); err != nil {
			t.Fatalf("request is not OTLP protobuf: %v", err)
		}
		for _, rl := range ld.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				out = append(out, sl.LogRecords...)
			}
		}
	}
	return out
}

func attr(r *logspb.LogRecord, k string) string {
	for _, kv := range r.Attributes {
		if kv.Key == k {
			if s := kv.Value.GetStringValue(); s != "" {
				return s
			}
			if kv.Value.GetIntValue() != 0 {
				return itoa(kv.Value.GetIntValue())
			}
		}
	}
	return ""
}

func otlpConf(url string, rows string) config.Notify {
	n := channelConf("otel", config.NotifyOTLP, url)
	n.OTLP = config.OTLP{Encoding: config.OTLPProtobuf, Rows: rows, Gzip: true}
	return n
}

// otlpEnv is a ledger, a deriver and a sender of one otlp channel on an
// injected clock.
type otlpEnv struct {
	store *runtrace.Store
	d     *Deriver
	clk   *clock
	cfg   *config.Config
	lost  []Undelivered
}

func newOTLPEnv(t *testing.T, n config.Notify) *otlpEnv {
	t.Helper()
	SetIdentity(Identity{Version: "1.2.3", InstanceID: "0b5f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b", HostName: "ws-07", HostID: "m-1234"})
	e := &otlpEnv{store: newStore(t), clk: newClock(), cfg: cfgWith(n)}
	e.d = NewDeriver(e.cfg, "ws-07", time.UTC)
	return e
}

func (e *otlpEnv) sender() *Sender {
	return NewSender(e.cfg, e.store, Options{Owner: "agent-1", Log: quiet, Now: e.clk.Now,
		OnUndelivered: func(u Undelivered) { e.lost = append(e.lost, u) }})
}

// TestOTLPEventsInOrder: what the outbox holds for the channel goes as one
// request, in order, each record with the documented resource and
// svcctl.* attributes and the event's stable id; every delivery is then
// delivered.
func TestOTLPEventsInOrder(t *testing.T) {
	col := newCollector(t, nil)
	e := newOTLPEnv(t, otlpConf(col.srv.URL, config.OTLPRowsNone))
	failRun(t, e.store, e.d, "a", t0)
	okRun(t, e.store, e.d, "a", t0.Add(time.Second))
	failRun(t, e.store, e.d, "b", t0.Add(2*time.Second))
	e.sender().Drain(ctxb)

	reqs := col.requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/logs" || reqs[0].Header.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("requests = %+v, want one protobuf POST to /v1/logs", reqs)
	}
	recs := col.records(t)
	want := []struct{ event, service string }{{"service.down", "a"}, {"service.recovered", "a"}, {"service.down", "b"}}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	ds, _ := e.store.Deliveries(ctxb, 10)
	for i, w := range want {
		if got := attr(recs[i], "svcctl.event"); got != w.event || attr(recs[i], "svcctl.service") != w.service {
			t.Errorf("record %d: event %q service %q, want %s of %s", i, got, attr(recs[i], "svcctl.service"), w.event, w.service)
		}
		if attr(recs[i], "svcctl.event_id") != ds[i].EventID || attr(recs[i], "svcctl.record") != "event" {
			t.Errorf("record %d: event_id %q record %q, want %q, event", i, attr(recs[i], "svcctl.event_id"), attr(recs[i], "svcctl.record"), ds[i].EventID)
		}
	}
	if recs[0].SeverityNumber != logspb.SeverityNumber_SEVERITY_NUMBER_WARN || recs[1].SeverityNumber != logspb.SeverityNumber_SEVERITY_NUMBER_INFO {
		t.Errorf("severities %v, %v; want WARN for a service down, INFO for its recovery", recs[0].SeverityNumber, recs[1].SeverityNumber)
	}
	var ld logspb.LogsData
	_ = proto.Unmarshal(reqs[0].Body, &ld)
	res := map[string]string{}
	for _, kv := range ld.ResourceLogs[0].Resource.Attributes {
		res[kv.Key] = kv.Value.GetStringValue()
	}
	for k, v := range map[string]string{"service.name": "svc-ctl", "service.version": "1.2.3", "host.name": "ws-07",
		"host.id": "m-1234", "service.instance.id": "0b5f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b", "os.type": osType()} {
		if res[k] != v {
			t.Errorf("resource %s = %q, want %q", k, res[k], v)
		}
	}
	if c := counts(t, e.store); c[runtrace.DeliveryDelivered] != 3 || c[runtrace.DeliveryPending] != 0 {
		t.Fatalf("deliveries %v, want 3 delivered", c)
	}
}

// TestOTLPRetryAfterThenPermanent: a 503 with Retry-After holds the whole
// batch until then (no newer event overtakes it); a 400 ends it failed.
func TestOTLPRetryAfterThenPermanent(t *testing.T) {
	col := newCollector(t, func(n int, w http.ResponseWriter) (int, []byte) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "120")
			return 503, nil
		case 3:
			return 400, []byte("bad data")
		}
		return 200, nil
	})
	e := newOTLPEnv(t, otlpConf(col.srv.URL, config.OTLPRowsNone))
	s := e.sender()
	failRun(t, e.store, e.d, "a", t0)
	s.Drain(ctxb)
	ds, _ := e.store.Deliveries(ctxb, 10, runtrace.DeliveryPending)
	if len(ds) != 1 || !ds[0].NextAt.Equal(e.clk.Now().Add(120*time.Second)) {
		t.Fatalf("after 503: %+v, want one pending until now+120s (Retry-After)", ds)
	}
	failRun(t, e.store, e.d, "b", t0.Add(time.Second))
	e.clk.Add(60 * time.Second)
	s.Drain(ctxb)
	if n := len(col.requests()); n != 0 {
		t.Fatalf("%d requests before the Retry-After passed, want 0: b must not overtake a", n)
	}
	e.clk.Add(61 * time.Second)
	s.Drain(ctxb)
	if recs := col.records(t); len(recs) != 2 || attr(recs[0], "svcctl.service") != "a" || attr(recs[1], "svcctl.service") != "b" {
		t.Fatalf("after the wait: %d records, want a then b", len(recs))
	}
	failRun(t, e.store, e.d, "c", e.clk.Now())
	s.Drain(ctxb)
	if c := counts(t, e.store); c[runtrace.DeliveryFailed] != 1 || c[runtrace.DeliveryPending] != 0 {
		t.Fatalf("after a 400: %v, want c failed for good", c)
	}
}

// TestOTLPPartialSuccess: a 200 whose answer says records were rejected
// (a protobuf ExportLogsServiceResponse, written out here byte by byte) is
// delivered, and the channel's state says what was rejected.
func TestOTLPPartialSuccess(t *testing.T) {
	// partial_success (1) { rejected_log_records (1) = 2, error_message (2) = "bad" }
	answer := []byte{0x0a, 0x07, 0x08, 0x02, 0x12, 0x03, 'b', 'a', 'd'}
	col := newCollector(t, func(int, http.ResponseWriter) (int, []byte) { return 200, answer })
	e := newOTLPEnv(t, otlpConf(col.srv.URL, config.OTLPRowsNone))
	failRun(t, e.store, e.d, "a", t0)
	e.sender().Drain(ctxb)
	states, _ := e.store.ChannelStates(ctxb)
	if len(states) != 1 || !strings.Contains(states[0].LastError, "rejected 2 events: bad") {
		t.Fatalf("channel state %+v, want the partial success named", states)
	}
	if c := counts(t, e.store); c[runtrace.DeliveryDelivered] != 1 {
		t.Fatalf("deliveries %v, want delivered (the collector took the request)", c)
	}
}

// TestOTLPJSONEncoding: OTLP/JSON's own rules, checked on the text:
// lowerCamelCase names, enums as numbers, 64-bit integers as strings.
func TestOTLPJSONEncoding(t *testing.T) {
	col := newCollector(t, nil)
	n := otlpConf(col.srv.URL, config.OTLPRowsNone)
	n.OTLP.Encoding = config.OTLPJSON
	n.OTLP.Gzip = false
	n.OTLP.Headers = map[string]string{"X-Scope-OrgID": "lab"}
	e := newOTLPEnv(t, n)
	failRun(t, e.store, e.d, "a", t0)
	e.sender().Drain(ctxb)
	reqs := col.requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Content-Type") != "application/json" ||
		reqs[0].Header.Get("Content-Encoding") != "" || reqs[0].Header.Get("X-Scope-OrgID") != "lab" {
		t.Fatalf("requests %+v", reqs)
	}
	// protojson varies its spacing on purpose: compare the compact form.
	var compact bytes.Buffer
	if err := json.Compact(&compact, reqs[0].Body); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	body := compact.String()
	for _, want := range []string{`"resourceLogs":[`, `"severityNumber":13`, `"timeUnixNano":"1772366400000000000"`,
		`"key":"svcctl.event","value":{"stringValue":"service.down"}`, `"eventName":"svcctl.service.down"`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
}

// TestOTLPRowsCursor: rows = "notable" sends every finished row but the
// routine healthy cycles; the cursor moves only once the collector took
// them, so a refused batch goes again and a restarted sender repeats
// nothing; rows pruned before they were sent are reported undelivered.
func TestOTLPRowsCursor(t *testing.T) {
	var down sync.Mutex
	refuse := true
	col := newCollector(t, func(int, http.ResponseWriter) (int, []byte) {
		down.Lock()
		defer down.Unlock()
		if refuse {
			return 503, nil
		}
		return 200, nil
	})
	n := otlpConf(col.srv.URL, config.OTLPRowsNotable)
	n.On = []string{config.EventAgent} // no service events: rows only
	e := newOTLPEnv(t, n)
	s := e.sender() // its cursor starts here: rows from now on
	okRun(t, e.store, e.d, "a", t0)
	failRun(t, e.store, e.d, "a", t0.Add(time.Second))
	job, _ := e.store.Record(ctxb, runtrace.Run{JobID: "job:pull", Trigger: runtrace.TriggerSchedule, ScheduledAt: t0,
		StartedAt: t0, FinishedAt: t0.Add(2 * time.Second), Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted})
	s.Drain(ctxb)
	if c, _ := e.store.ExportCursor(ctxb, "otel", t0); c != 0 {
		t.Fatalf("cursor after a 503 = %d, want 0 (not moved)", c)
	}
	down.Lock()
	refuse = false
	down.Unlock()
	e.clk.Add(time.Hour)
	s.Drain(ctxb)
	recs := col.records(t)
	if len(recs) != 2 || attr(recs[0], "svcctl.outcome") != "failed" || attr(recs[1], "svcctl.run_id") != itoa(job) ||
		attr(recs[1], "svcctl.job") != "pull" || attr(recs[1], "svcctl.slot") != "2026-03-01T12:00:00Z" {
		t.Fatalf("records %v, want the failed cycle and the job run (not the routine cycle)", recs)
	}
	e.sender().Drain(ctxb) // a restarted agent
	if got := len(col.records(t)); got != 2 {
		t.Fatalf("%d records after a restart, want still 2: nothing repeats", got)
	}
	// Rows that the ledger prunes before the collector got them are counted.
	down.Lock()
	refuse = true
	down.Unlock()
	for i := range 3 {
		failRun(t, e.store, e.d, "a", t0.Add(time.Duration(10+i)*time.Second))
	}
	if _, err := e.store.Prune(ctxb, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	e.clk.Add(time.Hour)
	s2 := e.sender()
	s2.Drain(ctxb)
	if len(e.lost) != 1 || e.lost[0].What != "rows" || e.lost[0].Count != 3 || e.lost[0].Channel != "otel" {
		t.Fatalf("undelivered %+v, want 3 rows of otel", e.lost)
	}
}

// TestOTLPIdleWritesNothing: rows that are not sent (routine cycles) move
// the cursor in memory only: an idle channel takes no write transaction
// (each is an fsync), and a restart reads those rows again, sending none.
func TestOTLPIdleWritesNothing(t *testing.T) {
	col := newCollector(t, nil)
	e := newOTLPEnv(t, otlpConf(col.srv.URL, config.OTLPRowsNotable))
	s := e.sender()
	for i := range 5 {
		okRun(t, e.store, e.d, "a", t0.Add(time.Duration(i)*time.Second))
	}
	s.Drain(ctxb)
	if c, _ := e.store.ExportCursor(ctxb, "otel", t0); c != 0 || len(col.requests()) != 0 {
		t.Fatalf("stored cursor %d, %d requests; want 0 and none (routine rows only)", c, len(col.requests()))
	}
	failRun(t, e.store, e.d, "a", t0.Add(time.Minute))
	s.Drain(ctxb)
	if c, _ := e.store.ExportCursor(ctxb, "otel", t0); c != 6 {
		t.Fatalf("stored cursor %d after a sent row, want 6", c)
	}
}

// TestOTLPRunRestartBy: a restart's row says whose restart it was in
// svcctl.restart_by; a first start carries none.
func TestOTLPRunRestartBy(t *testing.T) {
	col := newCollector(t, nil)
	n := otlpConf(col.srv.URL, config.OTLPRowsAll)
	n.On = []string{config.EventAgent}
	e := newOTLPEnv(t, n)
	s := e.sender()
	for _, d := range []string{`{"state":"healthy"}`, `{"state":"healthy","restart_by":"person","cause":"manual"}`} {
		if _, err := e.store.Record(ctxb, runtrace.Run{JobID: "watchdog:web", Trigger: runtrace.TriggerManual, StartedAt: t0, FinishedAt: t0,
			Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonStarted, Detail: json.RawMessage(d)}); err != nil {
			t.Fatal(err)
		}
	}
	s.Drain(ctxb)
	recs := col.records(t)
	if len(recs) != 2 || attr(recs[0], "svcctl.restart_by") != "" || attr(recs[1], "svcctl.restart_by") != "person" {
		t.Fatalf("records %v, want the first start without svcctl.restart_by, the restart with person", recs)
	}
}
