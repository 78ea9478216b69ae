package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// healthServer is a loopback server with the endpoints the http tests need.
func healthServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/okay", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "okay") })
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		var code int
		fmt.Sscan(r.PathValue("code"), &code)
		w.WriteHeader(code)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("a", 70<<10)+"MARKER")
	})
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/health", http.StatusFound) })
	mux.HandleFunc("/off", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://evil.example/steal?k=v", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPHealthy(t *testing.T) {
	t.Parallel()
	srv := healthServer(t)
	r := run(Spec{Kind: KindHTTP, Target: srv.URL + "/health", ExpectBody: "^ok$", Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if r.Detail["status"] != 200 {
		t.Fatalf("detail status = %v, want 200", r.Detail["status"])
	}
	if _, ok := r.Detail["proxy_env"]; ok {
		t.Fatalf("detail names a proxy, none was configured: %v", r.Detail)
	}
}

func TestHTTPJudgesStatusAndBody(t *testing.T) {
	t.Parallel()
	srv := healthServer(t)
	cases := []struct {
		path, body string
		status     int
		want       string // "" = healthy
	}{
		{path: "/status/500", want: "status 500, want 2xx"},
		{path: "/status/404", want: "status 404, want 2xx"},
		{path: "/status/204"},
		{path: "/health", status: 204, want: "status 200, want 204"},
		{path: "/status/503", status: 503},
		{path: "/okay", body: "^ok$", want: "body does not match ^ok$"},
		{path: "/okay", body: "ok"},
		// the regexp sees only the first 64 KiB: a match past it does not count
		{path: "/big", body: "MARKER", want: "body does not match MARKER"},
		{path: "/big", body: "^a+$"},
		{path: "/health", body: "(", want: "expect_body \"(\" is not a valid regexp: error parsing regexp: missing closing ): `(`"},
	}
	for _, c := range cases {
		r := run(Spec{Kind: KindHTTP, Target: srv.URL + c.path, ExpectStatus: c.status, ExpectBody: c.body, Timeout: 2 * time.Second})
		if c.want == "" {
			if !r.Healthy {
				t.Errorf("%s status=%d body=%q: unhealthy %q, want healthy", c.path, c.status, c.body, r.Reason)
			}
			continue
		}
		if r.Healthy || r.Reason != c.want {
			t.Errorf("%s status=%d body=%q: healthy=%v reason %q, want %q", c.path, c.status, c.body, r.Healthy, r.Reason, c.want)
		}
	}
}

func TestHTTPRedirects(t *testing.T) {
	t.Parallel()
	srv := healthServer(t)

	r := run(Spec{Kind: KindHTTP, Target: srv.URL + "/a", ExpectBody: "^ok$", Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if r.Detail["final_url"] != srv.URL+"/health" {
		t.Fatalf("final_url = %v, want %s/health", r.Detail["final_url"], srv.URL)
	}

	r = run(Spec{Kind: KindHTTP, Target: srv.URL + "/off", Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "redirect to other host evil.example:80 refused")
	if r.Detail["status"] != 302 || r.Detail["redirect_to"] != "http://evil.example/steal?k=[redacted]" {
		t.Fatalf("detail = %v, want status 302 and the redacted redirect target", r.Detail)
	}
}

func TestHTTPRedirectLoopStopsAfterFive(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n), http.StatusFound)
	}))
	defer srv.Close()
	r := run(Spec{Kind: KindHTTP, Target: srv.URL + "/loop/0", Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "more than 5 redirects")
	if got := hits.Load(); got != 6 { // the request and the 5 redirects followed
		t.Fatalf("server saw %d requests, want 6", got)
	}
}

func TestHTTPFreshConnectionPerProbe(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var agents []string
	var closeHeader []bool
	var opened, closed atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		closeHeader = append(closeHeader, r.Close)
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			closed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	for i := 0; i < 2; i++ {
		wantHealthy(t, run(Spec{Kind: KindHTTP, Target: srv.URL, Timeout: 2 * time.Second}))
	}
	if got := opened.Load(); got != 2 {
		t.Fatalf("server saw %d connections for 2 probes, want 2 (a connection was reused)", got)
	}
	// no probe leaves its connection open behind it
	testutil.WaitFor(t, 5*time.Second, "both probe connections to close", func() bool { return closed.Load() == 2 })
	mu.Lock()
	defer mu.Unlock()
	for i := range agents {
		if agents[i] != "svc-ctl-probe" || !closeHeader[i] {
			t.Fatalf("request %d: User-Agent %q, Connection: close %v; want svc-ctl-probe and true", i, agents[i], closeHeader[i])
		}
	}
}

func TestHTTPRefused(t *testing.T) {
	t.Parallel()
	r := run(Spec{Kind: KindHTTP, Target: "http://" + closedAddr(t) + "/health", Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "connection refused")
}

func TestHTTPTimeoutConnectedNoAnswer(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	t.Run("raw listener", func(t *testing.T) {
		t.Parallel()
		addr := holdListener(t)
		r := within(t, 5*timeout, func() Result {
			return run(Spec{Kind: KindHTTP, Target: "http://" + addr + "/health", Timeout: timeout})
		})
		wantUnhealthy(t, r, "timeout after 300ms (connected, no answer)")
	})
	t.Run("blocking handler", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // hangs until the probe gives up
		}))
		defer srv.Close()
		r := within(t, 5*timeout, func() Result {
			return run(Spec{Kind: KindHTTP, Target: srv.URL + "/health", Timeout: timeout})
		})
		wantUnhealthy(t, r, "timeout after 300ms (connected, no answer)")
	})
	t.Run("body stalls", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "o")
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
		}))
		defer srv.Close()
		r := within(t, 5*timeout, func() Result {
			return run(Spec{Kind: KindHTTP, Target: srv.URL + "/health", Timeout: timeout})
		})
		wantUnhealthy(t, r, "timeout after 300ms (connected, answer incomplete)")
		if r.Detail["status"] != 200 {
			t.Fatalf("detail status = %v, want 200 (headers came)", r.Detail["status"])
		}
	})
}

func TestHTTPClosedWithoutAnswer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1024)
			c.Read(buf) // take the request, then hang up
			c.Close()
		}
	}()
	r := run(Spec{Kind: KindHTTP, Target: "http://" + ln.Addr().String() + "/", Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "connection closed before an answer")
}

func TestHTTPRedactsTarget(t *testing.T) {
	t.Parallel()
	var gotUser, gotPass, gotToken string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotPass, _ = r.BasicAuth()
		gotToken = r.URL.Query().Get("token")
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	target := strings.Replace(srv.URL, "http://", "http://admin:hunter2pw@", 1) + "/health?token=tok-123&verbose=1"
	r := run(Spec{Kind: KindHTTP, Target: target, Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if gotUser != "admin" || gotPass != "hunter2pw" || gotToken != "tok-123" {
		t.Fatalf("server got user %q pass %q token %q: the probe must still send them", gotUser, gotPass, gotToken)
	}
	want := "http://[redacted]@" + strings.TrimPrefix(srv.URL, "http://") + "/health?token=[redacted]&verbose=[redacted]"
	if r.Target != want {
		t.Fatalf("target = %q, want %q", r.Target, want)
	}
	b, _ := json.Marshal(r)
	for _, secret := range []string{"admin", "hunter2pw", "tok-123"} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("result JSON holds %q: %s", secret, b)
		}
	}
}

func TestHTTPInvalidURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"ftp://127.0.0.1/", "127.0.0.1:80/health", "http://", "http://a b.example/%zz"} {
		r := run(Spec{Kind: KindHTTP, Target: u, Timeout: time.Second})
		wantUnhealthy(t, r, "invalid URL: want http:// or https:// and a host")
	}
}

func TestHTTPSVerifiesChain(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	srv.Config.ErrorLog = quietLog // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()

	r := run(Spec{Kind: KindHTTP, Target: srv.URL + "/health", Timeout: 2 * time.Second})
	if r.Healthy || !strings.Contains(r.Reason, "tls: certificate signed by unknown authority") {
		t.Fatalf("untrusted server: healthy=%v reason %q, want a tls unknown authority failure", r.Healthy, r.Reason)
	}

	trust(t, srv.Certificate())
	wantHealthy(t, run(Spec{Kind: KindHTTP, Target: srv.URL + "/health", ExpectBody: "^ok$", Timeout: 2 * time.Second}))
}

func TestHTTPProxyFromServiceEnv(t *testing.T) {
	// svc.invalid resolves nowhere: a healthy answer can only have come
	// through the proxy, which answers plain requests itself.
	for _, name := range []string{"HTTP_PROXY", "http_proxy"} {
		p := startProxy(t, "")
		r := run(Spec{Kind: KindHTTP, Target: "http://svc.invalid/health", Env: map[string]string{name: p.URL},
			ExpectBody: "via proxy", Timeout: 2 * time.Second})
		wantHealthy(t, r)
		if got := p.requests(); len(got) != 1 || got[0] != "GET http://svc.invalid/health" {
			t.Fatalf("%s: proxy saw %v, want one GET http://svc.invalid/health", name, got)
		}
		if r.Detail["proxy_env"] != name {
			t.Fatalf("%s: detail proxy_env = %v, want %s", name, r.Detail["proxy_env"], name)
		}
	}
}

// TestHTTPConcurrentChecksKeepTheirOwnProxy: every check shares one
// transport, so what is a check's own (its service's proxies, how far it
// got) must travel with its request: two checks at once, one through a
// proxy and one direct, each see and report only their own.
func TestHTTPConcurrentChecksKeepTheirOwnProxy(t *testing.T) {
	p := startProxy(t, "")
	direct := healthServer(t)
	var wg sync.WaitGroup
	results := make([]Result, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				results[i] = run(Spec{Kind: KindHTTP, Target: "http://svc.invalid/health", Env: map[string]string{"HTTP_PROXY": p.URL},
					ExpectBody: "via proxy", Timeout: 5 * time.Second})
				return
			}
			results[i] = run(Spec{Kind: KindHTTP, Target: direct.URL + "/health", Timeout: 5 * time.Second})
		}()
	}
	wg.Wait()
	for i, r := range results {
		wantHealthy(t, r)
		want := any(nil)
		if i%2 == 0 {
			want = "HTTP_PROXY"
		}
		if r.Detail["proxy_env"] != want {
			t.Fatalf("check %d: proxy_env %v, want %v", i, r.Detail["proxy_env"], want)
		}
	}
	if got := len(p.requests()); got != len(results)/2 {
		t.Fatalf("the proxy saw %d requests, want %d (only the proxied checks')", got, len(results)/2)
	}
}

func TestHTTPSProxyTunnel(t *testing.T) {
	// httptest's certificate is valid for example.com: through the CONNECT
	// tunnel the probe verifies it as example.com, with no DNS anywhere.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok over tls") }))
	defer srv.Close()
	trust(t, srv.Certificate())
	for _, name := range []string{"HTTPS_PROXY", "https_proxy"} {
		p := startProxy(t, srv.Listener.Addr().String())
		r := run(Spec{Kind: KindHTTP, Target: "https://example.com/health", Env: map[string]string{name: p.URL},
			ExpectBody: "ok over tls", Timeout: 2 * time.Second})
		wantHealthy(t, r)
		if got := p.requests(); len(got) != 1 || got[0] != "CONNECT example.com:443" {
			t.Fatalf("%s: proxy saw %v, want one CONNECT example.com:443", name, got)
		}
		if r.Detail["proxy_env"] != name {
			t.Fatalf("%s: detail proxy_env = %v, want the variable's name", name, r.Detail["proxy_env"])
		}
	}
}

func TestHTTPNoProxyBypass(t *testing.T) {
	p := startProxy(t, "")
	env := map[string]string{"HTTP_PROXY": p.URL, "NO_PROXY": "example.org,.invalid"}
	r := run(Spec{Kind: KindHTTP, Target: "http://svc.invalid/health", Env: env, Timeout: 2 * time.Second})
	// direct, so the name must resolve, and it cannot
	if r.Healthy || !strings.Contains(r.Reason, "svc.invalid") {
		t.Fatalf("healthy=%v reason %q, want a direct attempt failing to resolve svc.invalid", r.Healthy, r.Reason)
	}
	if n := p.count.Load(); n != 0 {
		t.Fatalf("proxy saw %d requests, want 0 (NO_PROXY names the host)", n)
	}

	env["no_proxy"], env["NO_PROXY"] = "example.org", ""
	wantHealthy(t, run(Spec{Kind: KindHTTP, Target: "http://svc.invalid/health", Env: env, Timeout: 2 * time.Second}))
	if n := p.count.Load(); n != 1 {
		t.Fatalf("proxy saw %d requests, want 1 (NO_PROXY does not name the host)", n)
	}
}

func TestHTTPLoopbackNeverProxied(t *testing.T) {
	p := startProxy(t, "")
	srv := healthServer(t)
	r := run(Spec{Kind: KindHTTP, Target: srv.URL + "/health", Env: map[string]string{"HTTP_PROXY": p.URL},
		ExpectBody: "^ok$", Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if n := p.count.Load(); n != 0 {
		t.Fatalf("proxy saw %d requests for a loopback target, want 0", n)
	}
}

func TestHTTPIgnoresAgentProxyEnv(t *testing.T) {
	p := startProxy(t, "")
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		t.Setenv(name, p.URL)
	}
	r := run(Spec{Kind: KindHTTP, Target: "http://svc.invalid/health", Timeout: 2 * time.Second})
	if r.Healthy {
		t.Fatalf("healthy through the agent's own proxy env: %+v", r)
	}
	if n := p.count.Load(); n != 0 {
		t.Fatalf("proxy from the agent's environment saw %d requests, want 0", n)
	}
}

func TestHTTPBadProxyNotShown(t *testing.T) {
	r := run(Spec{Kind: KindHTTP, Target: "http://svc.invalid/", Env: map[string]string{"HTTP_PROXY": "http://u:pw-secret@proxy.invalid/%zz"},
		Timeout: time.Second})
	if r.Healthy || r.Reason != "HTTP_PROXY in the service env is not a valid proxy URL" {
		t.Fatalf("healthy=%v reason %q: want an invalid proxy reason without the password", r.Healthy, r.Reason)
	}
}

func BenchmarkHTTPHealthy(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	s := Spec{Kind: KindHTTP, Target: srv.URL + "/health", ExpectBody: "^ok$", Timeout: 2 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		if r := run(s); !r.Healthy {
			b.Fatalf("unhealthy: %s", r.Reason)
		}
	}
}
