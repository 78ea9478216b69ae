package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"mime"
	"net/http"
	"strings"
	"sync"
)

// newToken is 32 random bytes, URL-safe: the only credential of the page.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// guard is what every request passes before any handler: the Host (for a
// loopback listener), the token for everything under /api/, and for
// anything but GET and HEAD the Origin. It also sets the security headers
// on every answer, 401s included.
//
// The token travels only in a header (Authorization: Bearer), never in a
// cookie or a query: a browser sends a cookie of 127.0.0.1 to every server
// on 127.0.0.1, whatever its port, and a query lands in history and logs.
// The page's own files (its HTML, script, style and icon: no data) need no
// token, so that a browser can load them from the printed URL, whose
// fragment (#token=..., never sent to the server) the page keeps in
// sessionStorage, scoped by origin, port included, and sends as the header.
type guard struct {
	token string
	hosts map[string]bool // Host values answered; nil: any (a public listener)
	// used, when set, is called once, at the first request that presents
	// the token: the page is open (the redirect file ui --open wrote has
	// done its work).
	used func()
	once sync.Once
}

// securityHeaders: no script or style but the page's own files, nothing
// from another origin, never in a frame, no referrer, nothing cached.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
		"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Frame-Options":              "DENY",
	"X-Content-Type-Options":       "nosniff",
	"Referrer-Policy":              "no-referrer",
	"Cache-Control":                "no-store",
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Resource-Policy": "same-origin",
}

func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		if g.hosts != nil && !g.hosts[strings.ToLower(r.Host)] {
			fail(w, http.StatusForbidden, errors.New("forbidden: unexpected Host header"))
			return
		}
		if !pageFile(r) {
			if !g.valid(g.tokenOf(r)) {
				fail(w, http.StatusUnauthorized, errors.New("unauthorized: send the token svc-ctl ui printed as Authorization: Bearer TOKEN"))
				return
			}
			if g.used != nil {
				g.once.Do(g.used)
			}
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := sameOrigin(r); err != nil {
				fail(w, http.StatusForbidden, errors.New("forbidden: "+err.Error()))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// pagePaths are the page's own files: "/" and everything embedded under
// assets/ (its script modules, style and icon), static and holding no data.
// Taken from the embedded files, as the mux's routes are, so a module added
// there is loaded without the token like the others (a browser fetches an
// imported module with no Authorization header).
var pagePaths = func() map[string]bool {
	m := map[string]bool{"/": true}
	for _, f := range pageFiles() {
		m[f] = true
	}
	return m
}()

func pageFile(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && pagePaths[r.URL.Path]
}

// tokenOf finds the token: an Authorization: Bearer header (the page's
// fetches, scripts).
func (g *guard) tokenOf(r *http.Request) string {
	if a, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(a)
	}
	return ""
}

func (g *guard) valid(tok string) bool {
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(g.token)) == 1
}

// sameOrigin refuses a state-changing request that did not come from the
// page itself: its Origin must be this server's, and its body JSON (a form
// post from another site can be neither).
func sameOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	switch {
	case origin == "":
		return errors.New("no Origin header: actions are POSTs from the page (or send Origin: http://" + r.Host + ")")
	case origin != "http://"+r.Host:
		return errors.New("Origin " + origin + " is not this page's")
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return errors.New("Sec-Fetch-Site " + site + ": want same-origin")
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return errors.New("Content-Type must be application/json")
	}
	return nil
}
