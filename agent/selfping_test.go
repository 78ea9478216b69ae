package agent

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// pingServer records the path and body of every ping.
type pingServer struct {
	mu  sync.Mutex
	got []string // "path body"
	srv *httptest.Server
}

func newPingServer(t *testing.T) *pingServer {
	p := &pingServer{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.got = append(p.got, r.URL.Path+" "+string(b))
		p.mu.Unlock()
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *pingServer) pings() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

// TestAgentSelfPing: /start when the agent starts, the bare URL each
// ping_every, /fail with the failing checks when verify at start FAILs,
// and nothing at all once the agent stops.
func TestAgentSelfPing(t *testing.T) {
	ps := newPingServer(t)
	e := jobEnv(t, "")
	e.cfg.Agent.Ping = ps.srv.URL + "/ping/abc"
	e.cfg.Agent.PingEvery = 300 * time.Millisecond
	ra := startAgent(t, e, Options{StartChecksAfter: 50 * time.Millisecond,
		StartChecks: func(context.Context) []string { return []string{"agent installed: FAIL: no unit"} }})
	testutil.WaitFor(t, 10*time.Second, "start, fail and a periodic ping", func() bool {
		var start, fail, ok bool
		for _, p := range ps.pings() {
			start = start || strings.HasPrefix(p, "/ping/abc/start svc-ctl test started")
			fail = fail || strings.HasPrefix(p, "/ping/abc/fail ") && strings.Contains(p, "agent installed: FAIL: no unit")
			ok = ok || strings.HasPrefix(p, "/ping/abc svc-ctl test: 0 services, 0 jobs")
		}
		return start && fail && ok
	})
	if first := ps.pings()[0]; !strings.HasPrefix(first, "/ping/abc/start ") {
		t.Fatalf("first ping %q, want /start", first)
	}
	if err := ra.stop(t); err != nil {
		t.Fatal(err)
	}
	n := len(ps.pings())
	time.Sleep(700 * time.Millisecond) // two periods: a stopped agent must stay silent
	if got := ps.pings(); len(got) != n {
		t.Fatalf("pings after the stop: %q", got[n:])
	}
}
