package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

// newToken is 32 random bytes, URL-safe: the only credential of the page.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// guard is what every request passes before any handler: the Host (for a
// loopback listener), the token, and for anything but GET and HEAD the
// Origin. It also sets the security headers on every answer, 401s included.
type guard struct {
	token  string
	cookie string          // the cookie's name, per port: two pages on one host keep their own
	hosts  map[string]bool // Host values answered; nil: any (a public listener)
}

// securityHeaders: no script or style but the page's own files, nothing
// from another origin, never in a frame, no referrer (the first URL carries
// the token), nothing cached.
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
			deny(w, http.StatusForbidden, "forbidden: unexpected Host header\n")
			return
		}
		if !g.valid(g.tokenOf(r)) {
			deny(w, http.StatusUnauthorized, "unauthorized\n")
			return
		}
		if q := r.URL.Query().Get("token"); q != "" && g.valid(q) && r.Method == http.MethodGet && r.URL.Path == "/" {
			// The token moves into the cookie and out of the address bar
			// (and out of the history the redirect replaces).
			http.SetCookie(w, &http.Cookie{Name: g.cookie, Value: g.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := sameOrigin(r); err != nil {
				deny(w, http.StatusForbidden, "forbidden: "+err.Error()+"\n")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// tokenOf finds the token: the cookie, an Authorization: Bearer header
// (scripts), or ?token= (the printed URL).
func (g *guard) tokenOf(r *http.Request) string {
	if c, err := r.Cookie(g.cookie); err == nil && c.Value != "" {
		return c.Value
	}
	if a, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(a)
	}
	return r.URL.Query().Get("token")
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

// deny answers with a status and a line, and nothing else.
func deny(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}
