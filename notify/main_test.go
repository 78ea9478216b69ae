package notify

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// The test binary doubles as the program of a command channel: with
// childEnv set it reads the event from stdin and appends it to the file the
// variable names, then exits with the code in childExitEnv (sleeping first
// when childSleepEnv is set, to be killed at the timeout).
const (
	childEnv      = "SVCCTL_NOTIFY_TEST_CHILD"
	childExitEnv  = "SVCCTL_NOTIFY_TEST_EXIT"
	childSleepEnv = "SVCCTL_NOTIFY_TEST_SLEEP"
	senderEnv     = "SVCCTL_NOTIFY_TEST_SENDER" // crash_test.go: a sender process to SIGKILL
)

// quiet drops the ledger's own events (runtrace.migrated): they are not
// the test's output, and under the Windows harness a stray line beside a
// tolerated failure is an unexplained one.
var quiet = slog.New(slog.DiscardHandler)

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(commandChild(path))
	}
	if spec := os.Getenv(senderEnv); spec != "" {
		senderChild(spec)
		return
	}
	os.Exit(m.Run())
}

func commandChild(path string) int {
	if os.Getenv(childSleepEnv) != "" {
		time.Sleep(time.Minute)
	}
	b, _ := io.ReadAll(os.Stdin)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 3
	}
	defer f.Close()
	f.Write(append([]byte(os.Getenv("SVCCTL_EVENT_ID")+" "), b...))
	if os.Getenv(childExitEnv) == "1" {
		os.Stderr.WriteString("receiver is unhappy\n")
		return 1
	}
	return 0
}

var (
	ctxb = context.Background()
	// t0 is a fixed instant: tests run on an injected clock.
	t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

// clock is an injected wall clock that tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func openStore(t *testing.T, path string) *runtrace.Store {
	t.Helper()
	s, err := runtrace.Open(path, runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newStore(t *testing.T) *runtrace.Store {
	t.Helper()
	return openStore(t, filepath.Join(t.TempDir(), "svc-ctl.db"))
}

// receiver is a loopback webhook/ntfy/healthchecks server that records
// every request; answer decides the status of each (by arrival number).
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []request
	n      atomic.Int64
	answer func(n int, r *http.Request) int
}

type request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

func newReceiver(t *testing.T, answer func(n int, r *http.Request) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

// newReceiverAt serves on a given listener (the address of one that was
// down before).
func newReceiverAt(t *testing.T, l net.Listener, answer func(n int, r *http.Request) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.srv.Listener.Close()
	rc.srv.Listener = l
	rc.srv.Start()
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	n := int(rc.n.Add(1))
	code := http.StatusOK
	if rc.answer != nil {
		code = rc.answer(n, r)
	}
	if code == 0 { // hang until the client gives up
		<-r.Context().Done()
		return
	}
	if code == http.StatusOK {
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, request{r.Method, r.URL.Path, r.Header.Clone(), body})
		rc.mu.Unlock()
	}
	w.WriteHeader(code)
}

// got returns the requests answered 200, in order.
func (rc *receiver) got() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.reqs...)
}

// events decodes the JSON bodies received.
func (rc *receiver) events(t *testing.T) []Event {
	t.Helper()
	var out []Event
	for _, r := range rc.got() {
		var e Event
		if err := json.Unmarshal(r.Body, &e); err != nil {
			t.Fatalf("body %q: %v", r.Body, err)
		}
		out = append(out, e)
	}
	return out
}

func channelConf(name, kind, url string) config.Notify {
	return config.Notify{Name: name, Kind: kind, URL: url, Timeout: 2 * time.Second}
}

func cfgWith(chans ...config.Notify) *config.Config {
	return &config.Config{Notify: chans, Jobs: []config.Job{{Name: "pull", Timezone: "UTC", Location: time.UTC,
		Schedule: "@hourly", Grace: 5 * time.Minute}}}
}

// failRun records a failed cycle of service name and queues its events.
func failRun(t *testing.T, s *runtrace.Store, d *Deriver, name string, at time.Time) int64 {
	t.Helper()
	id, err := s.RecordEmit(ctxb, runtrace.Run{JobID: "watchdog:" + name, Trigger: runtrace.TriggerSchedule,
		StartedAt: at, FinishedAt: at, Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonStartFailed,
		Detail: json.RawMessage(`{"state":"backoff","consecutive_failures":1,"probe":[{"kind":"tcp","target":"127.0.0.1:1","healthy":false,"reason":"connection refused"}]}`)},
		d.Emit)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// okRun records a healthy cycle (a recovery when the service was down).
func okRun(t *testing.T, s *runtrace.Store, d *Deriver, name string, at time.Time) {
	t.Helper()
	if _, err := s.RecordEmit(ctxb, runtrace.Run{JobID: "watchdog:" + name, Trigger: runtrace.TriggerSchedule,
		StartedAt: at, Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonAlreadyRunning,
		Detail: json.RawMessage(`{"state":"healthy"}`)}, d.Emit); err != nil {
		t.Fatal(err)
	}
}

func counts(t *testing.T, s *runtrace.Store) map[string]int {
	t.Helper()
	c, err := s.CountDeliveries(ctxb)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
