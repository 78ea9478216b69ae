package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// receivedHook counts what a loopback webhook got, by event id.
type receivedHook struct {
	mu  sync.Mutex
	ids map[string]int
	evs []map[string]any
}

func (h *receivedHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var e map[string]any
	json.Unmarshal(b, &e)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ids[r.Header.Get("Idempotency-Key")]++
	h.evs = append(h.evs, e)
}

// TestEventsSurviveAgentSIGKILL: the agent raises service.down while the
// receiver is down; the event waits in the outbox, the agent is SIGKILLed,
// the receiver comes up, a new agent delivers it: each id at least once, and
// none twice (no attempt reached the receiver before).
func TestEventsSurviveAgentSIGKILL(t *testing.T) {
	hookAddr := testutil.FreeAddr(t) // nothing listens there yet
	cfg, state := writeConfig(t, "", webService("bad", testutil.FreeAddr(t), "1s", "--exit-now", "4")+`
[[notify]]
name = "hook"
kind = "webhook"
url = "http://`+hookAddr+`/hook"
timeout = "1s"
`)
	agent1, _ := startAgentProcess(t, cfg)
	st := openStore(t, state)
	var queued []runtrace.Delivery
	testutil.WaitFor(t, 20*time.Second, "a failed delivery attempt", func() bool {
		queued, _ = st.Deliveries(context.Background(), 10, runtrace.DeliveryPending)
		return len(queued) > 0 && queued[0].Attempts > 0
	})
	agent1.Process.Kill() // SIGKILL
	agent1.Wait()

	l, err := net.Listen("tcp", hookAddr)
	if err != nil {
		t.Skipf("the receiver's port was taken meanwhile: %v", err)
	}
	h := &receivedHook{ids: map[string]int{}}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()

	startAgentProcess(t, cfg)
	delivered := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, d := range queued {
			if h.ids[d.EventID] == 0 {
				return false
			}
		}
		return true
	}
	testutil.WaitFor(t, 30*time.Second, "delivery after the restart", delivered)
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, d := range queued {
		if h.ids[d.EventID] != 1 {
			t.Errorf("event %s (%s) delivered %d times, want 1", d.EventID, d.Kind, h.ids[d.EventID])
		}
	}
	// The new agent also says the previous one died (SIGKILL): an event of
	// its own, beside the ones that waited.
	kinds := map[string]int{}
	for _, e := range h.evs {
		k, _ := e["kind"].(string)
		r, _ := e["reason"].(string)
		kinds[k+"/"+r]++
	}
	if kinds["service.down/start-failed"] == 0 || kinds["agent/agent-died"] != 1 {
		t.Errorf("events delivered: %v; want the service.down that waited and one agent-died", kinds)
	}
}

// TestNotifyTestAndList: `notify test` says per channel what happened and
// exits 1 when one failed; `notify list` shows the channel's last error.
func TestNotifyTestAndList(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer ok.Close()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(503) }))
	defer bad.Close()
	cfg, _ := writeConfig(t, "", `
[[notify]]
name = "good"
kind = "webhook"
url = "`+ok.URL+`/secret-path"

[[notify]]
name = "broken"
kind = "ntfy"
url = "`+bad.URL+`/topic"
`)
	r := svcctl(t, "notify", "test", "good", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "good") || !strings.Contains(r.stdout, "delivered in ") {
		t.Fatalf("notify test good: %+v", r)
	}
	r = svcctl(t, "notify", "test", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout, "broken") || !strings.Contains(r.stdout, "failed: HTTP 503") {
		t.Fatalf("notify test: %+v", r)
	}
	if r := svcctl(t, "notify", "test", "phone", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, `no [[notify]] channel "phone"`) {
		t.Fatalf("unknown channel: %+v", r)
	}
	// A ledger exists once a command that writes runs has run.
	svcctl(t, "start", "--all", "--config", cfg)
	svcctl(t, "notify", "test", "--config", cfg)
	r = svcctl(t, "notify", "list", "--config", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 503") || !strings.Contains(r.stdout, "nothing waiting") ||
		strings.Contains(r.stdout, "secret-path") {
		t.Fatalf("notify list: %+v", r)
	}
	r = svcctl(t, "status", "--config", cfg)
	if !strings.Contains(r.stdout, "CHANNEL") || !strings.Contains(r.stdout, "failing since") {
		t.Fatalf("status: %+v", r)
	}
	r = svcctl(t, "verify", "--config", cfg)
	if !strings.Contains(r.stdout, "WARN  channel broken") || !strings.Contains(r.stdout, "PASS  channel good") {
		t.Fatalf("verify: %+v", r)
	}
}

// TestHeldNotificationsSayHeld: an event min_interval holds back reads as
// held, with its min_interval and when it goes out, in `notify list` and
// in status's channel table. Before it read "pending, 0 tries", like a
// delivery nobody had tried.
func TestHeldNotificationsSayHeld(t *testing.T) {
	h := &receivedHook{ids: map[string]int{}}
	hook := httptest.NewServer(h)
	defer hook.Close()
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "1h")+`
[[notify]]
name = "hook"
kind = "webhook"
url = "`+hook.URL+`/hook"
min_interval = "1h"
`)
	startAgentProcess(t, cfg)
	testutil.WaitFor(t, 20*time.Second, "web up", func() bool { return testutil.Healthy(addr) })
	// Two crashes: the first event goes out, the next waits an hour.
	started := func() int {
		n := 0
		for _, r := range runsOf(t, state, "watchdog:web") {
			if r.Verdict() == "ok/started" {
				n++
			}
		}
		return n
	}
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool { return started() == 1 })
	for i := 0; i < 2; i++ {
		testutil.KillPID(t, readPIDOf(t, state, "web"))
		testutil.WaitFor(t, 20*time.Second, "web back", func() bool { return started() == 2+i })
	}
	st := openStore(t, state)
	testutil.WaitFor(t, 20*time.Second, "a delivery held by min_interval", func() bool {
		ds, _ := st.Deliveries(context.Background(), 10, runtrace.DeliveryPending)
		for _, d := range ds {
			if d.Deferred(time.Now()) {
				return true
			}
		}
		return false
	})
	r := svcctl(t, "notify", "list", "--config", cfg)
	if !strings.Contains(r.stdout, "held (min_interval 1h, next at ") {
		t.Errorf("notify list does not say held:\n%s", r.stdout)
	}
	r = svcctl(t, "status", "--config", cfg)
	if !strings.Contains(r.stdout, "held: min_interval 1h, next at ") {
		t.Errorf("status does not say held:\n%s", r.stdout)
	}
}
