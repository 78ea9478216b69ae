package ui

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
	"svcctl/runtrace"
	"svcctl/state"
)

// guarded is every path that answers data or acts: each needs the token.
var guarded = []struct{ method, path string }{
	{"GET", "/api/state"}, {"GET", "/api/timeline"}, {"GET", "/api/timeline?range=7d"},
	{"GET", "/api/detail?name=web"}, {"GET", "/nosuch"}, {"POST", "/"},
	{"POST", "/api/actions/start"}, {"POST", "/api/actions/restart"}, {"POST", "/api/actions/pause"}, {"POST", "/api/actions/resume"},
}

// pageFilePaths are the page's own static files: no data, no token needed.
var pageFilePaths = []string{"/", "/app.js", "/app.css", "/favicon.svg", "/js/api.js", "/js/overview.js"}

// TestTokenRequired: without the token in the header, or with another,
// every API path answers 401 as JSON and nothing else: no data, no action.
// The token is taken from the Authorization header only: a cookie (a
// browser sends 127.0.0.1's cookies to every port) or a query (history,
// logs) carrying the right token is not accepted. Failed before: the
// cookie, which any page on 127.0.0.1 got sent, opened the API.
func TestTokenRequired(t *testing.T) {
	pg := newPage(t)
	for _, tc := range []struct {
		name string
		set  func(*http.Request)
	}{
		{"no token", func(*http.Request) {}},
		{"wrong bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+newToken()) }},
		{"right token in the query", func(r *http.Request) { r.URL.RawQuery = "token=" + pg.srv.Token() }},
		{"right token in a cookie", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "svcctl_ui_" + portOf(pg.base), Value: pg.srv.Token()})
		}},
	} {
		for _, g := range guarded {
			req, _ := http.NewRequest(g.method, pg.base+g.path, strings.NewReader(`{"name":"web"}`))
			req.Header.Set("Origin", pg.base)
			req.Header.Set("Content-Type", "application/json")
			tc.set(req)
			resp := pg.do(req)
			var e apiError
			err := json.NewDecoder(resp.Body).Decode(&e)
			if resp.StatusCode != http.StatusUnauthorized || err != nil || !strings.HasPrefix(e.Error, "unauthorized") {
				t.Errorf("%s: %s %s = %d %+v %v, want 401 and a JSON error", tc.name, g.method, g.path, resp.StatusCode, e, err)
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("%s: %s %s set a cookie", tc.name, g.method, g.path)
			}
		}
	}
	if _, err := os.Stat(pg.p.Paused("web")); err == nil {
		t.Error("an unauthorized pause wrote the sentinel")
	}
}

func portOf(base string) string { return base[strings.LastIndex(base, ":")+1:] }

// TestTokenInTheHeader: the printed URL carries the token in its fragment
// (never sent to a server); the page's own files load without it (they
// hold no data) and set no cookie; with the token as a bearer header the
// API answers, and every answer carries the security headers.
func TestTokenInTheHeader(t *testing.T) {
	pg := newPage(t)
	if u := pg.srv.URL(pg.ts.Listener.Addr()); !strings.HasSuffix(u, "/#token="+pg.srv.Token()) {
		t.Fatalf("URL %s: want the token in the fragment", u)
	}
	check := func(path string, resp *http.Response) {
		t.Helper()
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "connect-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "http") {
			t.Errorf("GET %s: CSP %q allows inline code or another origin", path, csp)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: framing or referrer allowed: %v", path, resp.Header)
		}
		if resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s set a cookie", path)
		}
	}
	for _, path := range pageFilePaths {
		req, _ := http.NewRequest("GET", pg.base+path, nil)
		resp := pg.do(req)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s without the token = %d, want the page's file", path, resp.StatusCode)
		}
		check(path, resp)
	}
	req, _ := http.NewRequest("GET", pg.base+"/api/state", nil)
	req.Header.Set("Authorization", "Bearer "+pg.srv.Token())
	resp := pg.do(req)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/state with the token = %d", resp.StatusCode)
	}
	check("/api/state", resp)
}

// TestAPIErrorsAreJSON: an out-of-range time, an unknown path, a wrong
// method: each is a JSON error with its status, never an empty 200.
// Failed before: /api/detail?at=<year 300 million> answered 200 with an
// empty body (the time could not be encoded after the status was sent).
func TestAPIErrorsAreJSON(t *testing.T) {
	pg := newPage(t)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/detail?name=web&at=9223372036854775807", http.StatusBadRequest},
		{"GET", "/api/detail?name=web&at=-5", http.StatusBadRequest},
		{"GET", "/api/detail?name=web&at=soon", http.StatusBadRequest},
		{"GET", "/api/nosuch", http.StatusNotFound},
		{"GET", "/api/detail?name=nosuch", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tc.method, pg.base+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+pg.srv.Token())
		resp := pg.do(req)
		var e apiError
		err := json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != tc.status || err != nil || e.Error == "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s = %d %+v (%v), want %d and a JSON error", tc.method, tc.path, resp.StatusCode, e, err, tc.status)
		}
	}
}

// TestAssetsAreSelfContained: the page loads nothing from elsewhere and has
// no inline script or style the CSP would block (the browser test proves
// the rest: no console error).
func TestAssetsAreSelfContained(t *testing.T) {
	html, _ := fs.ReadFile(assets, "assets/index.html")
	for _, re := range []string{`<script>`, `<script(?: [^>]*)?>[^<]`, `<style`, ` style=`, ` on[a-z]+=`} {
		if m := regexp.MustCompile(re).Find(html); m != nil {
			t.Errorf("index.html has inline code %q: the CSP blocks it", m)
		}
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllSubmatch(html, -1) {
		if !strings.HasPrefix(string(m[1]), "/") || strings.HasPrefix(string(m[1]), "//") {
			t.Errorf("index.html loads %q: only the page's own files", m[1])
		}
	}
	fs.WalkDir(assets, "assets", func(path string, d fs.DirEntry, err error) error {
		if d.IsDir() {
			return nil
		}
		b, _ := fs.ReadFile(assets, path)
		for _, m := range regexp.MustCompile(`(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s'"]*`).FindAll(b, -1) {
			if !strings.HasPrefix(string(m), "http://www.w3.org/") { // XML namespaces name, never load
				t.Errorf("%s names another origin: %s", path, m)
			}
		}
		if strings.HasSuffix(path, ".js") && regexp.MustCompile(`\beval\(|new Function|innerHTML\s*=|setAttribute\('style'`).Match(b) {
			t.Errorf("%s builds code or markup from strings", path)
		}
		return nil
	})
}

// TestHostChecked: a loopback page answers only to its own address and
// localhost, so a name rebound to 127.0.0.1 reaches nothing.
func TestHostChecked(t *testing.T) {
	pg := newPage(t)
	req, _ := http.NewRequest("GET", pg.base+"/api/state", nil)
	req.Host = "evil.example:" + portOf(pg.base)
	req.Header.Set("Authorization", "Bearer "+pg.srv.Token())
	if resp := pg.do(req); resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host evil.example = %d, want 403", resp.StatusCode)
	}
	req.Host = "localhost:" + portOf(pg.base)
	if resp := pg.do(req); resp.StatusCode != http.StatusOK {
		t.Errorf("Host localhost = %d, want 200", resp.StatusCode)
	}
}

// TestOriginChecked: an action with the token but from another origin, with
// no Origin, or not as JSON, is refused and changes nothing.
func TestOriginChecked(t *testing.T) {
	pg := newPage(t)
	for _, tc := range []struct {
		name string
		set  func(*http.Request)
	}{
		{"no Origin", func(r *http.Request) { r.Header.Del("Origin") }},
		{"another origin", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
		{"another port", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") }},
		{"null origin", func(r *http.Request) { r.Header.Set("Origin", "null") }},
		{"cross-site fetch", func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }},
		{"a form post", func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }},
	} {
		resp, body := pg.post("pause", `{"name":"web","reason":"x"}`, tc.set)
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", tc.name, resp.StatusCode, body)
		}
	}
	if p, _ := state.ReadPause(pg.p.Paused("web")); p != nil {
		t.Fatalf("a refused action paused web: %+v", p)
	}
	if resp, body := pg.post("pause", `{"name":"web","reason":"x"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("the same action from the page = %d %s", resp.StatusCode, body)
	}
}

// TestActionsRecorded: start, restart, pause and resume from the page run
// the CLI verbs' code and leave the same record, manual and by "ui".
func TestActionsRecorded(t *testing.T) {
	pg := newPage(t)
	resp, body := pg.post("start", `{"name":"web"}`)
	var res struct {
		OK      bool
		Message string
		Result  struct {
			RunID   int64 `json:"run_id"`
			Reason  string
			Trigger string
		}
	}
	if err := json.Unmarshal([]byte(body), &res); resp.StatusCode != 200 || err != nil || !res.OK || res.Result.Reason != "started" {
		t.Fatalf("start = %d %s", resp.StatusCode, body)
	}
	rs, err := pg.store.Runs(t.Context(), runtrace.Filter{JobID: "watchdog:web"})
	if err != nil || len(rs) != 1 {
		t.Fatalf("runs of web: %v, %v", rs, err)
	}
	r := rs[0]
	var d struct{ By string }
	json.Unmarshal(r.Detail, &d)
	if r.ID != res.Result.RunID || r.Trigger != runtrace.TriggerManual || r.Reason != runtrace.ReasonStarted || d.By != "ui" {
		t.Errorf("start recorded as %s %s/%s by %q, want manual ok/started by \"ui\" (run %d)", r.Trigger, r.Outcome, r.Reason, d.By, res.Result.RunID)
	}

	resp, body = pg.post("restart", `{"name":"web"}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"reason":"restarted"`) {
		t.Fatalf("restart = %d %s", resp.StatusCode, body)
	}
	rs, _ = pg.store.Runs(t.Context(), runtrace.Filter{JobID: "watchdog:web", Limit: 1})
	var rd struct{ By, Cause string }
	json.Unmarshal(rs[0].Detail, &rd)
	if rs[0].Trigger != runtrace.TriggerManual || rs[0].Reason != runtrace.ReasonRestarted || rd.By != "ui" || rd.Cause != "manual" {
		t.Errorf("restart recorded as %s %s/%s by %q cause %q, want manual ok/restarted by \"ui\", cause manual", rs[0].Trigger, rs[0].Outcome, rs[0].Reason, rd.By, rd.Cause)
	}
	var after Page
	pg.getJSON("/api/state", &after)
	if c := after.Services[0].RestartCause; c != "manual" {
		t.Errorf("the page's last restart cause = %q, want manual (the person's restart)", c)
	}

	if resp, body := pg.post("pause", `{"name":"web","for":"2h","reason":"disk swap"}`); resp.StatusCode != 200 {
		t.Fatalf("pause = %d %s", resp.StatusCode, body)
	}
	p, _ := state.ReadPause(pg.p.Paused("web"))
	if p == nil || p.By != "ui" || p.Reason != "disk swap" || p.Until == nil || p.Until.Sub(p.At) != 2*time.Hour {
		t.Fatalf("pause sentinel = %+v, want by ui, reason, 2h", p)
	}
	if resp, body := pg.post("pause", `{"name":"pull","reason":"upstream down"}`); resp.StatusCode != 200 {
		t.Fatalf("pause a job = %d %s", resp.StatusCode, body)
	}
	if p, _ := state.ReadPause(pg.p.JobPaused("pull")); p == nil || p.By != "ui" || p.Until != nil {
		t.Fatalf("job pause sentinel = %+v, want by ui, until resumed", p)
	}

	if resp, body := pg.post("resume", `{"name":"web"}`); resp.StatusCode != 200 || !strings.Contains(body, `"was_paused":true`) {
		t.Fatalf("resume = %d %s", resp.StatusCode, body)
	}
	if p, _ := state.ReadPause(pg.p.Paused("web")); p != nil {
		t.Errorf("resume left the sentinel: %+v", p)
	}
	st, _ := state.LoadService(pg.p.StateFile("web"))
	if last := st.Transitions[len(st.Transitions)-1]; last.Why != "resumed by hand (ui)" {
		t.Errorf("state.json's last transition = %+v, want resumed by hand (ui)", last)
	}

	for _, tc := range []struct {
		action, body string
		status       int
	}{
		{"start", `{"name":"nosuch"}`, 404},
		{"start", `{"name":"pull"}`, 404}, // a job is not started by hand here
		{"pause", `{"name":"web","for":"-1h"}`, 400},
		{"pause", `{"name":"web","for":"soon"}`, 400},
		{"pause", `not json`, 400},
		{"launch", `{"name":"web"}`, 404},
	} {
		if resp, body := pg.post(tc.action, tc.body); resp.StatusCode != tc.status || !strings.Contains(body, `"error"`) {
			t.Errorf("%s %s = %d %s, want %d with an error", tc.action, tc.body, resp.StatusCode, body, tc.status)
		}
	}
}

// TestReadOnlyLedger: reading the page (state, both timelines, the detail
// of a service and of a job) changes no byte and no file of the state dir:
// the ledger is opened read-only, nothing is created, migrated or trimmed.
// The files are also made read-only, which binds where the test does not
// run as root.
func TestReadOnlyLedger(t *testing.T) {
	pg := newPage(t)
	pg.startAndKill()
	if _, err := pg.store.Register(t.Context(), runtrace.JobID("pull"), pg.cfg.Job("pull").Registration(), time.Now().Add(-5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	pg.store.Close() // as an agent that stopped: the page must need no writer
	before := tree(t, pg.p.State)
	chmodTree(t, pg.p.State, 0o500, 0o400)
	t.Cleanup(func() { chmodTree(t, pg.p.State, 0o700, 0o600) })

	var page Page
	pg.getJSON("/api/state", &page)
	if !page.Ledger.OK || len(page.Services) != 1 || page.Services[0].RestartCause != "exited: killed by SIGKILL" {
		t.Errorf("state: ledger %+v, services %+v", page.Ledger, page.Services)
	}
	for _, path := range []string{"/api/timeline", "/api/timeline?range=7d", "/api/detail?name=web", "/api/detail?name=pull"} {
		var v map[string]any
		pg.getJSON(path, &v)
	}
	chmodTree(t, pg.p.State, 0o700, 0o600)
	after := tree(t, pg.p.State)
	for path, sum := range before {
		if after[path] != sum {
			t.Errorf("%s changed: %s -> %s", path, sum, after[path])
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s was created by a reader", path)
		}
	}
}

// tree maps every file under dir to its size, mtime and content hash.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%d %s %x", info.Size(), info.ModTime().Format(time.RFC3339Nano), sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func chmodTree(t *testing.T, dir string, dirMode, fileMode os.FileMode) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if d.IsDir() {
			os.Chmod(path, dirMode)
		} else {
			os.Chmod(path, fileMode)
		}
		return nil
	})
}

// TestConnectionCap: the page serves at most maxConns connections at once;
// more wait in the kernel's queue until one ends, so a local user holding
// idle connections costs the page no more than that. Failed before: every
// connection was taken, and held until the client let go.
func TestConnectionCap(t *testing.T) {
	pg := newPage(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- pg.srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	var idle []net.Conn
	for range maxConns {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
		t.Cleanup(func() { c.Close() })
	}
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/state", nil)
		req.Header.Set("Authorization", "Bearer "+pg.srv.Token())
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			answered <- -1
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		t.Fatalf("a connection past the cap of %d was served at once (%d)", maxConns, code)
	case <-time.After(300 * time.Millisecond): // it waits in the queue: the cap holds
	}
	idle[0].Close()
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("the waiting request, once a slot was free: %d", code)
	}
}

// TestSlowAndIdleClientsAreCut: a client that never finishes its request,
// or keeps a connection open after its answer, is disconnected by the page
// (timeouts shortened here), so it cannot hold one of the page's few
// connections for long. Failed before: the page waited for both forever.
func TestSlowAndIdleClientsAreCut(t *testing.T) {
	testkit.Replace(t, &readHeaderTimeout, 200*time.Millisecond)
	testkit.Replace(t, &idleTimeout, 200*time.Millisecond)
	pg := newPage(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- pg.srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	// closed reads c until the server closes it (or the test's deadline).
	closed := func(c net.Conn) error {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.Copy(io.Discard, c)
		if err == nil { // EOF: the server hung up
			return nil
		}
		return err
	}
	slow, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	io.WriteString(slow, "GET /api/state HTTP/1.1\r\nHost: "+ln.Addr().String()+"\r\n") // and never the blank line
	if err := closed(slow); err != nil {
		t.Errorf("a request never finished held its connection: %v", err)
	}
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	io.WriteString(idle, "GET /api/state HTTP/1.1\r\nHost: "+ln.Addr().String()+"\r\nAuthorization: Bearer "+pg.srv.Token()+"\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the idle client's one request: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	if err := closed(idle); err != nil {
		t.Errorf("a kept-alive connection with nothing asked was held: %v", err)
	}
}
