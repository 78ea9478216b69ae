package notify

import (
	"context"
	"crypto/hmac"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// TestReceiverDownThenUp: events queued while the receiver is down wait,
// with a growing retry time, and are delivered once it is up: each id once,
// with its Idempotency-Key and a signature that verifies.
func TestReceiverDownThenUp(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // down: nothing listens there
	hook := channelConf("hook", config.NotifyWebhook, "http://"+addr+"/hook")
	hook.Secret = "hmac-key"
	cfg := cfgWith(hook)
	s := newStore(t)
	clk := newClock()
	d := NewDeriver(cfg, "ws-07", time.UTC)
	snd := NewSender(cfg, s, Options{Owner: "a", Now: clk.Now})
	var ids []string
	for i, name := range []string{"proxy", "db", "cache"} {
		failRun(t, s, d, name, t0.Add(time.Duration(i)*time.Second))
	}
	ds, _ := s.Deliveries(ctxb, 10)
	for _, x := range ds {
		ids = append(ids, x.EventID)
	}
	if len(ids) != 3 {
		t.Fatalf("queued %d events, want 3", len(ids))
	}

	snd.Drain(ctxb)
	pending, _ := s.Deliveries(ctxb, 10, runtrace.DeliveryPending)
	if len(pending) != 3 {
		t.Fatalf("after a refused connection: %d pending, want 3", len(pending))
	}
	first := pending[0]
	// The error names the refused dial; its words are the OS's ("connection
	// refused" on Unix, "actively refused" on Windows).
	if first.Attempts != 1 || !first.NextAt.After(t0) || first.NextAt.After(t0.Add(backoffFirst)) ||
		!strings.Contains(first.LastError, "dial tcp "+addr) || strings.Contains(first.LastError, "/hook") {
		t.Fatalf("after one failure: %+v", first)
	}
	cs, _ := s.ChannelStates(ctxb)
	if len(cs) != 1 || cs[0].FailingSince.IsZero() {
		t.Fatalf("channel state: %+v", cs)
	}

	l2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	rc := newReceiverAt(t, l2, nil)
	snd.Drain(ctxb) // not due yet: nothing is sent early
	if n := len(rc.got()); n != 0 {
		t.Fatalf("%d sent before the retry time", n)
	}
	clk.Add(backoffFirst)
	snd.Drain(ctxb)
	got := rc.got()
	if len(got) != 3 {
		t.Fatalf("delivered %d, want 3", len(got))
	}
	for i, r := range got {
		if key := r.Header.Get("Idempotency-Key"); key != ids[i] {
			t.Errorf("request %d: Idempotency-Key %q, want %q", i, key, ids[i])
		}
		if sig := r.Header.Get(SignatureHeader); !hmac.Equal([]byte(sig), []byte(documentedSignature("hmac-key", r.Body))) {
			t.Errorf("request %d: signature %q does not verify", i, sig)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	}
	evs := rc.events(t)
	if evs[0].Kind != KindServiceDown || evs[0].Service != "proxy" || evs[0].Host != "ws-07" ||
		!strings.Contains(evs[0].Message, "proxy on ws-07 is down: start-failed: tcp 127.0.0.1:1: connection refused") {
		t.Errorf("event = %+v", evs[0])
	}
	if c := counts(t, s); c[runtrace.DeliveryDelivered] != 3 || c[runtrace.DeliveryPending] != 0 {
		t.Errorf("counts = %v", c)
	}
	cs, _ = s.ChannelStates(ctxb)
	if !cs[0].FailingSince.IsZero() || cs[0].LastOK.IsZero() {
		t.Errorf("channel state after recovery: %+v", cs[0])
	}
}

// TestStatusClasses: 500 then 200 is delivered on the second attempt; a
// 400 is refused for good; a 429 waits for its Retry-After; a redirect is
// refused, never followed.
func TestStatusClasses(t *testing.T) {
	cases := []struct {
		name      string
		answer    func(n int, r *http.Request) int
		state     string
		attempts  int
		errSubstr string
	}{
		{"500 then 200", func(n int, _ *http.Request) int { return map[bool]int{true: 500, false: 200}[n == 1] },
			runtrace.DeliveryDelivered, 2, ""},
		{"400", func(int, *http.Request) int { return 400 }, runtrace.DeliveryFailed, 1, "HTTP 400 Bad Request"},
		{"redirect", func(int, *http.Request) int { return 302 }, runtrace.DeliveryFailed, 1, "redirect refused"},
		{"408 retried", func(n int, _ *http.Request) int { return map[bool]int{true: 408, false: 200}[n == 1] },
			runtrace.DeliveryDelivered, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := newReceiver(t, c.answer)
			cfg := cfgWith(channelConf("hook", config.NotifyWebhook, rc.srv.URL+"/x"))
			s := newStore(t)
			clk := newClock()
			snd := NewSender(cfg, s, Options{Owner: "a", Now: clk.Now})
			failRun(t, s, NewDeriver(cfg, "h", time.UTC), "proxy", t0)
			snd.Drain(ctxb)
			clk.Add(backoffMax)
			snd.Drain(ctxb)
			ds, _ := s.Deliveries(ctxb, 10)
			if len(ds) != 1 || ds[0].State != c.state || ds[0].Attempts != c.attempts || !strings.Contains(ds[0].LastError, c.errSubstr) {
				t.Errorf("delivery = %+v, want %s after %d attempts (%q)", ds, c.state, c.attempts, c.errSubstr)
			}
		})
	}
	t.Run("429 Retry-After", func(t *testing.T) {
		rc := newReceiver(t, func(n int, _ *http.Request) int { return map[bool]int{true: 429, false: 200}[n == 1] })
		rc.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "120")
			rc.serve(w, r)
		})
		cfg := cfgWith(channelConf("hook", config.NotifyWebhook, rc.srv.URL))
		s := newStore(t)
		clk := newClock()
		snd := NewSender(cfg, s, Options{Owner: "a", Now: clk.Now})
		failRun(t, s, NewDeriver(cfg, "h", time.UTC), "proxy", t0)
		snd.Drain(ctxb)
		ds, _ := s.Deliveries(ctxb, 10)
		if !ds[0].NextAt.Equal(t0.Add(120 * time.Second)) {
			t.Errorf("next attempt at %v, want Retry-After's %v", ds[0].NextAt, t0.Add(120*time.Second))
		}
	})
}

// TestHangingReceiverDelaysOnlyItself: a receiver that never answers costs
// its channel one timeout per attempt; another channel delivers meanwhile.
func TestHangingReceiverDelaysOnlyItself(t *testing.T) {
	release := make(chan struct{})
	hang := newReceiver(t, func(int, *http.Request) int { <-release; return 0 })
	fast := newReceiver(t, nil)
	slow := channelConf("slow", config.NotifyWebhook, hang.srv.URL)
	slow.Timeout = 300 * time.Millisecond
	cfg := cfgWith(slow, channelConf("fast", config.NotifyWebhook, fast.srv.URL))
	s := newStore(t)
	snd := NewSender(cfg, s, Options{Owner: "a", Poll: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(ctxb)
	done := make(chan struct{})
	go func() { snd.Run(ctx); close(done) }()
	defer func() { cancel(); close(release); <-done }()
	failRun(t, s, NewDeriver(cfg, "h", time.UTC), "proxy", time.Now())
	snd.Wake()
	testutil.WaitFor(t, 5*time.Second, "the fast channel's delivery", func() bool { return len(fast.got()) == 1 })
	testutil.WaitFor(t, 5*time.Second, "the slow channel's timeout", func() bool {
		ds, _ := s.Deliveries(ctxb, 10, runtrace.DeliveryPending)
		return len(ds) == 1 && ds[0].Attempts == 1
	})
	ds, _ := s.Deliveries(ctxb, 10, runtrace.DeliveryPending)
	if ds[0].Channel != "slow" || !strings.Contains(ds[0].LastError, "no answer within the timeout") {
		t.Errorf("slow delivery = %+v", ds[0])
	}
}

// TestMinInterval: a flapping service sends one message, and the next one,
// min_interval later, says how many were held back.
func TestMinInterval(t *testing.T) {
	rc := newReceiver(t, nil)
	ch := channelConf("phone", config.NotifyWebhook, rc.srv.URL)
	ch.MinInterval = 10 * time.Minute
	cfg := cfgWith(ch)
	s := newStore(t)
	clk := newClock()
	d := NewDeriver(cfg, "ws-07", time.UTC)
	snd := NewSender(cfg, s, Options{Owner: "a", Now: clk.Now})
	// down, recovered, down, recovered, down: five events a minute apart.
	for i := range 5 {
		at := t0.Add(time.Duration(i) * time.Minute)
		clk.now = at
		if i%2 == 0 {
			failRun(t, s, d, "proxy", at)
		} else {
			okRun(t, s, d, "proxy", at)
		}
		snd.Drain(ctxb)
	}
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d messages within min_interval, want 1", n)
	}
	clk.now = t0.Add(10*time.Minute - time.Millisecond)
	snd.Drain(ctxb)
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d messages just before min_interval, want 1", n)
	}
	clk.now = t0.Add(10 * time.Minute)
	snd.Drain(ctxb)
	evs := rc.events(t)
	if len(evs) != 2 {
		t.Fatalf("%d messages, want 2", len(evs))
	}
	last := evs[1]
	if last.Kind != KindServiceDown || last.HeldBack != 3 || !strings.HasSuffix(last.Text(), "(3 more held back)") {
		t.Errorf("summary message = %+v (%s)", last, last.Text())
	}
	if c := counts(t, s); c[runtrace.DeliveryHeld] != 3 || c[runtrace.DeliveryDelivered] != 2 {
		t.Errorf("counts = %v", c)
	}
	// Another service is not held back by proxy's messages.
	failRun(t, s, d, "db", clk.Now())
	snd.Drain(ctxb)
	if evs := rc.events(t); len(evs) != 3 || evs[2].Service != "db" {
		t.Errorf("db's message was held: %+v", evs)
	}
}

func TestRetryIn(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 5 * time.Second, 2: 10 * time.Second, 4: 40 * time.Second, 30: backoffMax} {
		for range 20 {
			if got := retryIn(n, nil); got < want/2 || got > want {
				t.Fatalf("retryIn(%d) = %v, want in [%v, %v]", n, got, want/2, want)
			}
		}
	}
}

func TestUnopenableChannelFailsItsDeliveries(t *testing.T) {
	cfg := cfgWith(config.Notify{Name: "bad", Kind: config.NotifyCommand, Timeout: time.Second})
	s := newStore(t)
	snd := NewSender(cfg, s, Options{Owner: "a"})
	failRun(t, s, NewDeriver(cfg, "h", time.UTC), "proxy", time.Now())
	snd.Drain(ctxb)
	ds, _ := s.Deliveries(ctxb, 10)
	if len(ds) != 1 || ds[0].State != runtrace.DeliveryFailed || !strings.Contains(ds[0].LastError, "empty command") {
		t.Errorf("deliveries = %+v", ds)
	}
}

// guardEnv is a ledger, an injected clock, a deriver (host ws-07, booted an
// hour before t0) and a sender for the channels of a config's text: the
// setting of the flood-guard tests.
type guardEnv struct {
	t   *testing.T
	cfg *config.Config
	s   *runtrace.Store
	clk *clock
	d   *Deriver
	snd *Sender
}

func newGuardEnv(t *testing.T, text string) *guardEnv {
	t.Helper()
	cfg, err := config.Parse([]byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	g := &guardEnv{t: t, cfg: cfg, s: newStore(t), clk: newClock(), d: NewDeriver(cfg, "ws-07", time.UTC)}
	g.d.SetBootTime(t0.Add(-time.Hour))
	g.snd = NewSender(cfg, g.s, Options{Owner: "a", Now: g.clk.Now})
	return g
}

// row records a run of job at, with its events, and lets the sender drain.
func (g *guardEnv) row(job string, at time.Time, outcome runtrace.Outcome, reason runtrace.Reason, detail string) {
	g.t.Helper()
	g.clk.now = at
	if _, err := g.s.RecordEmit(ctxb, runtrace.Run{JobID: job, Trigger: runtrace.TriggerEvent,
		StartedAt: at, FinishedAt: at, Outcome: outcome, Reason: reason, Detail: []byte(detail)}, g.d.Emit); err != nil {
		g.t.Fatal(err)
	}
	g.snd.Drain(ctxb)
}

// TestDefaultFloodGuard: a channel whose table leaves out
// min_interval does not page once per restart of a crash-looping service:
// the first event goes out, the rest wait min_interval's default (5m) and
// arrive as one message saying how many were held back. An explicit "0s"
// keeps no limit. The channels come from a real config file's text.
func TestDefaultFloodGuard(t *testing.T) {
	guarded, unlimited := newReceiver(t, nil), newReceiver(t, nil)
	g := newGuardEnv(t, `
[[notify]]
name = "phone"
kind = "webhook"
url  = "`+guarded.srv.URL+`/hook"

[[notify]]
name = "everything"
kind = "webhook"
url  = "`+unlimited.srv.URL+`/hook"
min_interval = "0s"
`)
	if got := g.cfg.NotifyChannel("phone").MinInterval; got != 5*time.Minute {
		t.Errorf("default min_interval %v, want 5m", got)
	}
	okRun(t, g.s, g.d, "flap", t0) // up during this boot
	// 20 crashes, each restarted and healthy at once, 2 s apart.
	for i := range 20 {
		g.row("watchdog:flap", t0.Add(time.Duration(i+1)*2*time.Second), runtrace.OutcomeOK, runtrace.ReasonStarted,
			`{"state":"healthy","cause":"exited: with code 4"}`)
	}
	if n := len(unlimited.got()); n != 20 {
		t.Errorf(`min_interval = "0s": %d messages, want 20 (no limit)`, n)
	}
	if n := len(guarded.got()); n != 1 {
		t.Fatalf("default min_interval: %d messages while flapping, want 1", n)
	}
	g.clk.now = t0.Add(2*time.Second + 5*time.Minute)
	g.snd.Drain(ctxb)
	evs := guarded.events(t)
	if len(evs) != 2 || evs[1].HeldBack != 18 || !strings.HasSuffix(evs[1].Text(), "(18 more held back)") {
		t.Fatalf("after 5m: %d messages, the last %q", len(evs), evs[len(evs)-1].Text())
	}
}

// The flood guard never holds an escalation: with the
// default min_interval, a crash loop's restarts send one message and are
// held; the service given up a few seconds later goes out at once, saying
// how many were held back — the earlier events deferred for later included,
// so no stale "was restarted" arrives after "given up".
func TestFloodGuardLetsGivenUpThrough(t *testing.T) {
	rc := newReceiver(t, nil)
	g := newGuardEnv(t, `
[[notify]]
name = "phone"
kind = "webhook"
url  = "`+rc.srv.URL+`/hook"
`)
	okRun(t, g.s, g.d, "flap", t0)
	for i := range 5 { // five restarts, healthy each time
		g.row("watchdog:flap", t0.Add(time.Duration(i+1)*2*time.Second), runtrace.OutcomeOK, runtrace.ReasonStarted,
			`{"state":"healthy","cause":"exited: with code 4"}`)
	}
	if n := len(rc.got()); n != 1 {
		t.Fatalf("%d messages during the restarts, want 1 (the flood guard)", n)
	}
	g.row("watchdog:flap", t0.Add(14*time.Second), runtrace.OutcomeFailed, runtrace.ReasonStartFailed,
		`{"state":"given-up","consecutive_failures":3,"cause":"exited: with code 4"}`)
	evs := rc.events(t)
	if len(evs) != 2 || evs[1].Kind != KindServiceGivenUp || evs[1].HeldBack != 4 {
		t.Fatalf("after the give-up: %d messages, the last %+v; want the given-up event at once, 4 held back", len(evs), evs[len(evs)-1])
	}
	g.clk.now = t0.Add(10 * time.Minute)
	g.snd.Drain(ctxb)
	if n := len(rc.got()); n != 2 {
		t.Fatalf("%d messages once the interval passed, want still 2: the held events went with the give-up", n)
	}
}

// On a healthchecks channel the flood guard keeps the check's state right:
// a held recovery followed by a restart that ended healthy (a /log ping)
// sends the recovery's success, not the /log (otherwise the check
// stays down for a service healthy for minutes).
func TestFloodGuardKeepsHealthchecksGreen(t *testing.T) {
	rc := newReceiver(t, nil)
	g := newGuardEnv(t, `
[[notify]]
name = "hc"
kind = "healthchecks"
url  = "`+rc.srv.URL+`/hc"
`)
	okRun(t, g.s, g.d, "web", t0)
	g.row("watchdog:web", t0.Add(2*time.Second), runtrace.OutcomeFailed, runtrace.ReasonStartFailed, `{"state":"backoff","cause":"unhealthy: http 500"}`)
	g.row("watchdog:web", t0.Add(4*time.Second), runtrace.OutcomeOK, runtrace.ReasonStarted, `{"state":"healthy"}`)                               // recovered: held
	g.row("watchdog:web", t0.Add(6*time.Second), runtrace.OutcomeOK, runtrace.ReasonStarted, `{"state":"healthy","cause":"exited: with code 4"}`) // down, restarted: /log, held
	g.clk.now = t0.Add(2*time.Second + 5*time.Minute)
	g.snd.Drain(ctxb)
	var paths []string
	for _, r := range rc.got() {
		paths = append(paths, r.Path)
	}
	if len(paths) != 2 || paths[0] != "/hc/fail" || paths[1] != "/hc" {
		t.Fatalf("pings %v; want /hc/fail, then the held recovery's success /hc", paths)
	}
}

// The agent's own events are never folded under one another: a crash found
// at start and a verify failure a moment later both arrive.
func TestFloodGuardSendsEveryAgentEvent(t *testing.T) {
	rc := newReceiver(t, nil)
	g := newGuardEnv(t, `
[[notify]]
name = "phone"
kind = "webhook"
url  = "`+rc.srv.URL+`/hook"
`)
	for i, msg := range []string{"the previous agent died of a fatal error", "verify at the agent's start: 1 check(s) FAIL", "reload refused"} {
		g.clk.now = t0.Add(time.Duration(i) * time.Second)
		if _, err := g.s.Emit(ctxb, []runtrace.OutboxEvent{g.d.Agent(msg, "", g.clk.now)}, nil); err != nil {
			t.Fatal(err)
		}
		g.snd.Drain(ctxb)
	}
	evs := rc.events(t)
	if len(evs) != 3 {
		t.Fatalf("%d agent events delivered within min_interval, want all 3", len(evs))
	}
}
