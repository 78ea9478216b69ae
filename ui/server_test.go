package ui

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"svcctl/runtrace"
	"svcctl/state"
)

// everything the page serves: it all needs the token.
var guarded = []struct{ method, path string }{
	{"GET", "/"}, {"GET", "/app.js"}, {"GET", "/app.css"}, {"GET", "/favicon.svg"},
	{"GET", "/api/state"}, {"GET", "/api/timeline"}, {"GET", "/api/timeline?range=7d"},
	{"GET", "/api/detail?name=web"}, {"GET", "/nosuch"},
	{"POST", "/api/actions/start"}, {"POST", "/api/actions/restart"}, {"POST", "/api/actions/pause"}, {"POST", "/api/actions/resume"},
}

// TestTokenRequired: without the token, or with another, every path answers
// 401 and nothing else: no page, no asset, no data, no action.
func TestTokenRequired(t *testing.T) {
	pg := newPage(t)
	for _, tc := range []struct {
		name string
		set  func(*http.Request)
	}{
		{"no token", func(*http.Request) {}},
		{"wrong bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+newToken()) }},
		{"wrong query", func(r *http.Request) { r.URL.RawQuery = "token=" + newToken() }},
		{"wrong cookie", func(r *http.Request) {
			r.AddCookie(&http.Cookie{Name: "svcctl_ui_" + portOf(pg.base), Value: newToken()})
		}},
		{"right token, other port's cookie", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "svcctl_ui_1", Value: pg.srv.Token()}) }},
	} {
		for _, g := range guarded {
			req, _ := http.NewRequest(g.method, pg.base+g.path, strings.NewReader(`{"name":"web"}`))
			req.Header.Set("Origin", pg.base)
			req.Header.Set("Content-Type", "application/json")
			tc.set(req)
			resp := pg.do(req)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusUnauthorized || string(b) != "unauthorized\n" {
				t.Errorf("%s: %s %s = %d %q, want 401 \"unauthorized\"", tc.name, g.method, g.path, resp.StatusCode, b)
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("%s: %s %s set a cookie without the token", tc.name, g.method, g.path)
			}
		}
	}
	if _, err := os.Stat(pg.p.Paused("web")); err == nil {
		t.Error("an unauthorized pause wrote the sentinel")
	}
}

func portOf(base string) string { return base[strings.LastIndex(base, ":")+1:] }

// TestTokenMovesToCookie: the printed URL's token becomes an HttpOnly,
// SameSite=Strict cookie and leaves the address bar; with the cookie the
// page and its API answer, with the security headers.
func TestTokenMovesToCookie(t *testing.T) {
	pg := newPage(t)
	req, _ := http.NewRequest("GET", pg.base+"/?token="+pg.srv.Token(), nil)
	resp := pg.do(req)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("first load = %d, Location %q; want 303 to / (the token dropped from the URL)", resp.StatusCode, resp.Header.Get("Location"))
	}
	var c *http.Cookie
	for _, k := range resp.Cookies() {
		if k.Name == "svcctl_ui_"+portOf(pg.base) {
			c = k
		}
	}
	if c == nil || c.Value != pg.srv.Token() || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Fatalf("cookie = %+v, want the token, HttpOnly, SameSite=Strict, Path=/", c)
	}
	// The printed URL opened again in a browser that has the cookie: the
	// token still leaves the address bar.
	req, _ = http.NewRequest("GET", pg.base+"/?token="+pg.srv.Token(), nil)
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	if resp := pg.do(req); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("second load of the printed URL = %d, Location %q; want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, path := range []string{"/", "/app.js", "/app.css", "/api/state"} {
		req, _ := http.NewRequest("GET", pg.base+path, nil)
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		resp := pg.do(req)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the cookie = %d", path, resp.StatusCode)
		}
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
