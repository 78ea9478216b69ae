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
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// The test binary doubles as the program of a command channel, told what
// to do by its arguments (a channel's command gets the base environment,
// never the test's: internal/svcenv): `childArg FILE EXIT SLEEP` reads the
// event from stdin and appends it, with the event's id and what it saw of
// its environment, to FILE, then exits with EXIT (sleeping a minute first
// when SLEEP is "sleep", to be killed at the timeout).
const (
	childArg  = "svcctl-notify-test-child"
	senderEnv = "SVCCTL_NOTIFY_TEST_SENDER" // crash_test.go: a sender process to SIGKILL
)

// callerVar is a variable of the test process, never of the child's.
const callerVar = "SVCCTL_NOTIFY_TEST_CALLER"

// childCommand is the command of a channel whose program is this binary.
func childCommand(file, exit, sleep string) []string {
	return []string{os.Args[0], childArg, file, exit, sleep}
}

// quiet drops the ledger's own events (runtrace.migrated): they are not
// the test's output, and under the Windows harness a stray line beside a
// tolerated failure is an unexplained one.
var quiet = slog.New(slog.DiscardHandler)

func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == childArg {
		os.Exit(commandChild(os.Args[2], os.Args[3], os.Args[4]))
	}
	if spec := os.Getenv(senderEnv); spec != "" {
		senderChild(spec)
		return
	}
	os.Exit(m.Run())
}

func commandChild(path, exit, sleep string) int {
	if sleep == "sleep" {
		time.Sleep(time.Minute)
	}
	b, _ := io.ReadAll(os.Stdin)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 3
	}
	defer f.Close()
	f.Write(append([]byte(os.Getenv("SVCCTL_EVENT_ID")+" "+os.Getenv(callerVar)+"|"+os.Getenv(baseVar())+" "), b...))
	if exit == "1" {
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

// baseVar is a variable of the base environment a command channel's child
// gets: HOME on Unix; on Windows, whose base is the system block without a
// user's variables, SystemRoot.
func baseVar() string {
	if runtime.GOOS == "windows" {
		return "SystemRoot"
	}
	return "HOME"
}
