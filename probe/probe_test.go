package probe

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/config"
)

func TestRunUnknownKind(t *testing.T) {
	t.Parallel()
	r := run(Spec{Kind: "ping", Target: "127.0.0.1"})
	// The kinds are listed from the table: raw.go's, then the registered
	// (test-banner: register_test.go).
	wantUnhealthy(t, r, `unknown probe kind "ping", want tcp, http, exec, dns, file, cert or test-banner`)
	if r.Kind != "ping" || r.Target != "127.0.0.1" {
		t.Fatalf("kind/target = %q/%q, want them echoed", r.Kind, r.Target)
	}
}

// TestEveryKindHasAFunc: the probe table runs exactly what the config
// schema accepts: each health check (a key of [service.health]) and each
// dependency kind (a depends entry's kind), and nothing else.
func TestEveryKindHasAFunc(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for _, k := range append(slices.Clone(config.HealthChecks), config.DependKinds...) {
		want[k] = true
		if kinds[k] == nil {
			t.Errorf("kind %q (config) has no Func in the table", k)
		}
	}
	for k := range kinds {
		if !want[k] {
			t.Errorf("kind %q has a Func but is neither a health check nor a dependency kind of the config", k)
		}
	}
}

func TestRunAllRunsEveryCheckAndSummarizes(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()

	ok := RunAll(context.Background(), []Spec{
		{Kind: KindTCP, Target: ln.Addr().String(), Timeout: 2 * time.Second},
		{Kind: KindHTTP, Target: srv.URL, Timeout: 2 * time.Second},
	})
	if !Healthy(ok) {
		t.Fatalf("want healthy: %+v", ok)
	}
	if s := Summary(ok); !regexp.MustCompile(`^tcp ok in \d+\.\dms, http 200 in \d+\.\dms$`).MatchString(s) {
		t.Fatalf("summary = %q", s)
	}

	// the first check fails; the second still runs, so the record has both verdicts
	mixed := RunAll(context.Background(), []Spec{
		{Kind: KindTCP, Target: closedAddr(t), Timeout: 2 * time.Second},
		{Kind: KindHTTP, Target: srv.URL, Timeout: 2 * time.Second},
	})
	if len(mixed) != 2 || mixed[0].Healthy || !mixed[1].Healthy {
		t.Fatalf("want [unhealthy, healthy], got %+v", mixed)
	}
	if Healthy(mixed) {
		t.Fatal("Healthy with a failed check")
	}
	if s := Summary(mixed); s != "tcp: connection refused" {
		t.Fatalf("summary = %q, want %q", s, "tcp: connection refused")
	}
	if Healthy(nil) || Summary(nil) != "no checks configured" {
		t.Fatalf("no results: Healthy=%v Summary=%q; want false and no checks configured", Healthy(nil), Summary(nil))
	}
}

func TestResultJSON(t *testing.T) {
	t.Parallel()
	r := Result{Kind: KindHTTP, Target: "http://x/", Healthy: true, Latency: 1500 * time.Microsecond, LatencyMS: 1.5,
		Detail: map[string]any{"status": 200}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"http","target":"http://x/","healthy":true,"latency_ms":1.5,"detail":{"status":200}}`
	if string(b) != want {
		t.Fatalf("json = %s, want %s", b, want)
	}
}

func TestHealthSpecs(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HTTPS_PROXY": "http://127.0.0.1:7890"}
	h := config.Health{TCP: "127.0.0.1:8789", HTTP: "http://127.0.0.1:8789/health", ExpectStatus: 200, ExpectBody: "^ok",
		Timeout: 2 * time.Second, Exec: []string{"/bin/check", "-q"}}
	got := HealthSpecs(h, env, "/srv/proxy", nil)
	want := []Spec{
		{Kind: KindTCP, Target: "127.0.0.1:8789", Timeout: 2 * time.Second},
		{Kind: KindHTTP, Target: "http://127.0.0.1:8789/health", Env: env, ExpectStatus: 200, ExpectBody: "^ok", Timeout: 2 * time.Second},
		{Kind: KindExec, Argv: []string{"/bin/check", "-q"}, Dir: "/srv/proxy", Env: env, Timeout: 2 * time.Second},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("HealthSpecs =\n%+v\nwant\n%+v", got, want)
	}
	if got := HealthSpecs(config.Health{HTTP: "http://x/"}, nil, "", nil); len(got) != 1 || got[0].Kind != KindHTTP {
		t.Fatalf("only http set: %+v", got)
	}
}

func TestDependSpec(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HTTPS_PROXY": "http://127.0.0.1:7890"}
	cases := []struct {
		d    config.Depend
		want Spec
	}{
		{config.Depend{Kind: "http", URL: "https://api.example.com/", ExpectStatus: 204, Timeout: 5 * time.Second},
			Spec{Kind: KindHTTP, Target: "https://api.example.com/", ExpectStatus: 204, Env: env, Timeout: 5 * time.Second}},
		{config.Depend{Kind: "tcp", Address: "db:5432", Timeout: time.Second}, Spec{Kind: KindTCP, Target: "db:5432", Timeout: time.Second}},
		{config.Depend{Kind: "dns", Host: "api.example.com"}, Spec{Kind: KindDNS, Target: "api.example.com"}},
		{config.Depend{Kind: "file", Path: "/srv/stamp", MaxAge: time.Hour}, Spec{Kind: KindFile, Target: "/srv/stamp", MaxAge: time.Hour}},
		{config.Depend{Kind: "cert", Path: "/srv/c.pem", MinValid: 72 * time.Hour}, Spec{Kind: KindCert, Target: "/srv/c.pem", MinValid: 72 * time.Hour, Env: env}},
		{config.Depend{Kind: "cert", URL: "https://api.example.com"}, Spec{Kind: KindCert, Target: "https://api.example.com", Env: env}},
	}
	for _, c := range cases {
		if got := DependSpec(c.d, env); !reflect.DeepEqual(got, c.want) {
			t.Errorf("DependSpec(%+v) = %+v, want %+v", c.d, got, c.want)
		}
	}
}

func TestFmtDur(t *testing.T) {
	t.Parallel()
	cases := map[time.Duration]string{
		3*time.Hour + 2*time.Second: "3h",
		9*time.Hour + 59*time.Minute + 59*time.Second + 500*time.Millisecond: "10h",
		90 * time.Minute:        "1h30m",
		72 * time.Hour:          "72h",
		5 * time.Minute:         "5m",
		2 * time.Second:         "2s",
		300 * time.Millisecond:  "300ms",
		1500 * time.Millisecond: "1.5s",
		-2 * time.Hour:          "-2h",
	}
	for d, want := range cases {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
	}
	if !strings.HasSuffix(fmtLatency(1234*time.Microsecond), "1.2ms") {
		t.Errorf("fmtLatency(1.234ms) = %q", fmtLatency(1234*time.Microsecond))
	}
}

func TestBoundedGivesUpAtDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	s := Spec{Timeout: 200 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	r := within(t, 5*s.Timeout, func() Result {
		return bounded(ctx, s, "the file system did not answer", func() Result {
			<-release // a stat on a dead network mount
			return Result{Healthy: true}
		})
	})
	wantUnhealthy(t, r, "timeout after 200ms (the file system did not answer)")

	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	wantUnhealthy(t, bounded(ctx2, s, "x", func() Result { <-release; return Result{} }), "canceled before a verdict")
	wantHealthy(t, bounded(context.Background(), s, "x", func() Result { return Result{Healthy: true} }))
}

// A panic in the goroutine bounded starts (beyond the agent's L2 net) is an
// unhealthy verdict that says so, not the end of the agent.
func TestBoundedPanicIsAVerdict(t *testing.T) {
	s := Spec{Kind: KindFile, Timeout: time.Second}
	r := bounded(context.Background(), s, "x", func() Result { panic("planted: a bug in a check") })
	wantUnhealthy(t, r, "the file check panicked: planted: a bug in a check (a bug in svc-ctl: please report it)")
}

func TestSummaryOfAResultReadBackFromJSON(t *testing.T) {
	r := Result{Kind: KindHTTP, Healthy: true, Latency: 1500 * time.Microsecond, LatencyMS: 1.5, Detail: map[string]any{"status": 200}}
	b, err := json.Marshal([]Result{r})
	if err != nil {
		t.Fatal(err)
	}
	var back []Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := Summary(back), Summary([]Result{r}); got != want {
		t.Fatalf("read back from JSON: %q, want %q", got, want)
	}
}
