package agent

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
	"svcctl/notify"
)

// hookReceiver is a loopback webhook that keeps the events it got.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	evs []notify.Event
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var e notify.Event
		if err := json.Unmarshal(b, &e); err == nil {
			h.mu.Lock()
			h.evs = append(h.evs, e)
			h.mu.Unlock()
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) kinds(kind string) []notify.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []notify.Event
	for _, e := range h.evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func hookTOML(url string) string {
	return `
[[notify]]
name = "hook"
kind = "webhook"
url = "` + url + `"
timeout = "2s"
`
}

// TestExternalJobMissingRaisesEvent: the agent's own dead man's switch. An
// external job whose slot passes its grace with no run raises job.missing,
// delivered through the channel, without anyone running `svc-ctl missing`;
// a slot that did run (through exec, here a recorded row) raises nothing.
// The check runs every missingEvery (a minute in the agent; shortened here).
func TestExternalJobMissingRaisesEvent(t *testing.T) {
	h := newHookReceiver(t)
	e := jobEnv(t, `
[[job]]
name = "backup"
schedule = "@every 2s"
timezone = "UTC"
external = true
grace = "1s"
`+hookTOML(h.srv.URL))
	start := time.Now()
	startAgentWith(t, e, Options{}, func(a *Agent) { a.missingEvery = 100 * time.Millisecond })
	testutil.WaitFor(t, 10*time.Second, "a job.missing event", func() bool { return len(h.kinds(notify.KindJobMissing)) > 0 })
	ev := h.kinds(notify.KindJobMissing)[0]
	slot, err := time.Parse(time.RFC3339, ev.Slot)
	if err != nil || ev.Job != "backup" || ev.Subject != "job:backup" || !strings.Contains(ev.Message, "did not run at its") ||
		!strings.Contains(ev.Detail, "another scheduler") {
		t.Fatalf("event = %+v (%v)", ev, err)
	}
	// Raised after the slot's grace, and promptly after it.
	if late := ev.Time.Sub(slot.Add(time.Second)); late < 0 || late > 3*time.Second || slot.Before(start.Add(-time.Second)) {
		t.Errorf("slot %s, raised %s: %v after its grace", slot, ev.Time, late)
	}
	// Each slot once: ids are unique.
	seen := map[string]bool{}
	for _, x := range h.kinds(notify.KindJobMissing) {
		if seen[x.ID] {
			t.Errorf("event %s delivered twice", x.ID)
		}
		seen[x.ID] = true
	}
}

// TestServiceDownDelivered: the agent's cycles pass the funnel. Its first
// start of a service after the boot raises nothing (svc-ctl doing its job);
// a service that was up and is killed is restarted by the fast path and
// raises service.down, delivered without waiting for the sender's poll.
func TestServiceDownDelivered(t *testing.T) {
	h := newHookReceiver(t)
	addr := testutil.FreeAddr(t)
	e := envOf(t, testutil.Service{Name: "web", Addr: addr, Interval: "1h", Confirm: "0s"}.TOML(testsvcBin)+hookTOML(h.srv.URL))
	startAgent(t, e, Options{})
	testutil.WaitFor(t, 15*time.Second, "web started", func() bool {
		return latestStarted(e, "web", time.Time{}) != nil && testutil.Healthy(addr)
	})
	if n := len(h.kinds(notify.KindServiceDown)); n != 0 {
		t.Fatalf("the first start raised %d service.down", n)
	}
	killedAt := time.Now()
	testutil.KillPID(t, int(e.Pid("web").PID))
	testutil.WaitFor(t, 15*time.Second, "service.down for the kill", func() bool { return len(h.kinds(notify.KindServiceDown)) > 0 })
	ev := h.kinds(notify.KindServiceDown)[0]
	if ev.Service != "web" || !strings.Contains(ev.Message, "was restarted") || ev.RunID == 0 || ev.Time.Before(killedAt) ||
		ev.Trigger != "event" {
		t.Errorf("event = %+v", ev)
	}
}
