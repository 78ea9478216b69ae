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
	"svcctl/runtrace"
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
	e.Cfg.Agent.Ping = ps.srv.URL + "/ping/abc"
	e.Cfg.Agent.PingEvery = 300 * time.Millisecond
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

// TestAgentSelfPingLedger: while the ledger refuses writes, the agent's
// check gets /fail with the cause at once and at every period; once it
// takes them again, the periods ping success.
func TestAgentSelfPingLedger(t *testing.T) {
	ps := newPingServer(t)
	e := jobEnv(t, "")
	e.Cfg.Agent.Ping = ps.srv.URL + "/p"
	e.Cfg.Agent.PingEvery = 200 * time.Millisecond
	var a *Agent
	startAgentWith(t, e, Options{}, func(ag *Agent) { a = ag })
	testutil.WaitFor(t, 10*time.Second, "the start ping", func() bool { return len(ps.pings()) > 0 })
	a.ledgerChanged(runtrace.Health{Up: false, Cause: runtrace.CauseDiskFull, Since: time.Now(), Dir: "/var/lib/svc-ctl"})
	mark := len(ps.pings())
	testutil.WaitFor(t, 10*time.Second, "two /fail pings naming the full disk", func() bool {
		n := 0
		for _, p := range ps.pings()[mark:] {
			if strings.HasPrefix(p, "/p/fail svc-ctl cannot write its ledger") && strings.Contains(p, "full") {
				n++
			}
		}
		return n >= 2
	})
	a.ledgerChanged(runtrace.Health{Up: true, Cause: runtrace.CauseDiskFull, Since: time.Now().Add(-time.Second), RecoveredAt: time.Now()})
	mark = len(ps.pings())
	testutil.WaitFor(t, 10*time.Second, "a success ping after the ledger is back", func() bool {
		for _, p := range ps.pings()[mark:] {
			if strings.HasPrefix(p, "/p svc-ctl test: ") {
				return true
			}
		}
		return false
	})
}
