package ui

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testenv"
	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

var testsvcBin string

func TestMain(m *testing.M) { os.Exit(testsvc.RunTests(m, &testsvcBin)) }

// page is a status page over a real state dir: service "web" (testsvc) and
// job "pull" (every minute, Asia/Shanghai), served on a loopback listener.
type page struct {
	t     testing.TB
	cfg   *config.Config
	p     state.Paths
	store *runtrace.Store // the test's own writer, as an agent's would be
	srv   *Server
	ts    *httptest.Server
	base  string // http://127.0.0.1:PORT
}

func newPage(t testing.TB) *page { return newPageWith(t, nil) }

// newPageWith is newPage with its Options changed by opts before the page
// is built (nil: as newPage).
func newPageWith(t testing.TB, opts func(*page, *Options)) *page {
	t.Helper()
	addr := testutil.FreeAddr(t)
	job := "\n[[job]]\nname = \"pull\"\nschedule = \"* * * * *\"\ntimezone = \"Asia/Shanghai\"\ncommand = [\"" +
		strings.ReplaceAll(testsvcBin, `\`, `\\`) + "\", \"--exit-now\", \"0\"]\ngrace = \"10s\"\n"
	cfg := testutil.Config(t, "", testutil.Service{Name: "web", Addr: addr, Interval: "1h", Args: []string{"--say", "connecting with token hunter2-secret-value"},
		Env: map[string]string{"API_TOKEN": "hunter2-secret-value"}}.TOML(testsvcBin)+job)
	pg := &page{t: t, cfg: cfg, p: state.PathsOf(cfg), store: testenv.Ledger(t, cfg)}
	o := Options{Config: cfg, Version: "test", Act: pg.actor}
	if opts != nil {
		opts(pg, &o)
	}
	pg.srv = New(o)
	t.Cleanup(pg.srv.Wait) // before the temp dir goes: a verify may still read it
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pg.ts = &httptest.Server{Listener: ln, Config: &http.Server{Handler: pg.srv.Handler(ln.Addr())}}
	pg.ts.Start()
	t.Cleanup(pg.ts.Close)
	pg.base = "http://" + ln.Addr().String()
	return pg
}

// actor is what cmd gives the page: a supervisor over the checked config,
// recording to the ledger (here the test's writer).
func (pg *page) actor(ctx context.Context) (*watchdog.Supervisor, func(), error) {
	cfg, err := config.LoadToRun(pg.cfg.Path)
	if err != nil {
		return nil, nil, err
	}
	return watchdog.NewSupervisor(cfg, pg.store, nil), func() {}, nil
}

// supervisor runs cycles as the agent would.
func (pg *page) supervisor() *watchdog.Supervisor {
	return watchdog.NewSupervisor(pg.cfg, pg.store, nil)
}

// startAndKill starts web, kills it as something outside would, and runs
// the cycle the agent's fast path runs for that exit: a restart whose cause
// is the kill.
func (pg *page) startAndKill() {
	t := pg.t
	t.Helper()
	sup := pg.supervisor()
	if r, err := sup.Ensure(context.Background(), "web", watchdog.Request{Trigger: runtrace.TriggerManual, Manual: true}); err != nil || r.Reason != runtrace.ReasonStarted {
		t.Fatalf("first start: %+v, %v", r, err)
	}
	inst, err := proc.ReadInstance(pg.p.Pid("web"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.KillPID(t, int(inst.PID))
	testutil.WaitFor(t, 10*time.Second, "web down", func() bool { return !testutil.Healthy(pg.webAddr()) })
	r, err := sup.Ensure(context.Background(), "web", watchdog.Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Cause: watchdog.CauseExited, Why: "killed by SIGKILL"})
	if err != nil || r.Reason != runtrace.ReasonStarted {
		t.Fatalf("restart after the kill: %+v, %v", r, err)
	}
}

func (pg *page) webAddr() string {
	h := pg.cfg.Service("web").Health.HTTP
	return strings.TrimSuffix(strings.TrimPrefix(h, "http://"), "/health")
}

// get asks the page with the token (as a bearer, like a script would).
func (pg *page) get(path string) *http.Response {
	pg.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, pg.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+pg.srv.Token())
	return pg.do(req)
}

func (pg *page) do(req *http.Request) *http.Response {
	pg.t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 60 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		pg.t.Fatal(err)
	}
	pg.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// getJSON asks for path and decodes a 200 answer into v.
func (pg *page) getJSON(path string, v any) {
	pg.t.Helper()
	resp := pg.get(path)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		pg.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		pg.t.Fatalf("GET %s: %v\n%s", path, err, b)
	}
}

// post sends an action from the page's own origin.
func (pg *page) post(action, body string, mutate ...func(*http.Request)) (*http.Response, string) {
	pg.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, pg.base+"/api/actions/"+action, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+pg.srv.Token())
	req.Header.Set("Origin", pg.base)
	req.Header.Set("Content-Type", "application/json")
	for _, m := range mutate {
		m(req)
	}
	resp := pg.do(req)
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
