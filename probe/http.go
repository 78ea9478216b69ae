package probe

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sync"

	"svcctl/internal/redact"
)

const (
	userAgent    = "svc-ctl-probe"
	maxBody      = 64 << 10 // expect_body sees at most this much of the body
	maxRedirects = 5
)

// redirectError is a redirect the probe refused to follow.
type redirectError struct {
	to     *url.URL
	reason string
}

func (e *redirectError) Error() string { return e.reason }

// probeHTTP GETs s.Target through the probes' shared, keep-alive-free
// transport with the proxies of the service's env, follows same-host
// redirects (at most 5) and is healthy when the status is as expected
// (default any 2xx) and the first 64 KiB of the body match s.ExpectBody.
func probeHTTP(ctx context.Context, s Spec) Result {
	u, err := url.Parse(s.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return unhealthy("invalid URL: want http:// or https:// and a host")
	}
	var re *regexp.Regexp
	if s.ExpectBody != "" {
		if re, err = regexp.Compile(s.ExpectBody); err != nil {
			return unhealthy("expect_body %q is not a valid regexp: %v", s.ExpectBody, err)
		}
	}
	rs := &requestState{t: &tracker{}, proxies: proxyFor(s.Env)}
	client := &http.Client{Transport: httpTransport(), CheckRedirect: sameHostOnly(u)}

	req, err := http.NewRequestWithContext(context.WithValue(ctx, requestStateKey{}, rs), http.MethodGet, u.String(), nil)
	if err != nil {
		return unhealthy("invalid URL: %s", innerMessage(err))
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := client.Do(req)
	detail := map[string]any{}
	if v := rs.proxies.usedVar(); v != "" {
		detail["proxy_env"] = v
	}
	if err != nil {
		return httpFailure(ctx, s, resp, err, rs.t.phase(), detail)
	}
	defer resp.Body.Close()
	return judgeResponse(ctx, s, u, resp, re, detail)
}

// requestState is what one check's requests carry in their context to the
// shared transport: where the check got to (tracker) and its service's
// proxies.
type requestState struct {
	t       *tracker
	proxies *proxyRules
}

type requestStateKey struct{}

func stateOf(ctx context.Context) *requestState {
	rs, _ := ctx.Value(requestStateKey{}).(*requestState)
	if rs == nil { // a request not made by probeHTTP: nothing to record, direct
		rs = &requestState{t: &tracker{}, proxies: proxyFor(nil)}
	}
	return rs
}

// shared is the one transport every HTTP check uses. Keep-alives are off,
// so no connection outlives its request: each check dials afresh and a
// hung server is judged by a new connection, never one a previous check
// left open. What differs between checks (proxies, the tracker) travels in
// the request's context; building a transport, its TLS config and its
// pools every cycle cost an idle agent a sixth of its CPU.
var shared struct {
	mu    sync.Mutex
	tr    *http.Transport
	roots []*x509.Certificate // the extraRootCerts it was built with
}

func httpTransport() *http.Transport {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.tr == nil || !slices.Equal(shared.roots, extraRootCerts) {
		shared.tr = &http.Transport{
			Proxy: func(req *http.Request) (*url.URL, error) { return stateOf(req.Context()).proxies.forRequest(req) },
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return trackedDial(stateOf(ctx).t)(ctx, network, addr)
			},
			TLSClientConfig:        tlsConfig(""),
			DisableKeepAlives:      true,
			MaxResponseHeaderBytes: 64 << 10,
			// Each check is a new connection, and each connection gets
			// its own buffers: 4 KiB each by default, a quarter of what
			// a healthy cycle allocated. A check's request is one line
			// and a few headers; a longer response only takes more reads.
			ReadBufferSize:  1 << 10,
			WriteBufferSize: 512,
		}
		shared.roots = extraRootCerts
	}
	return shared.tr
}

// sameHostOnly follows redirects to the original host and port only: a
// health endpoint that sends the probe elsewhere is not healthy, whatever the
// other host answers.
func sameHostOnly(orig *url.URL) func(*http.Request, []*http.Request) error {
	want := hostPort(orig)
	return func(req *http.Request, via []*http.Request) error {
		if got := hostPort(req.URL); got != want {
			return &redirectError{to: req.URL, reason: fmt.Sprintf("redirect to other host %s refused", got)}
		}
		if len(via) > maxRedirects {
			return &redirectError{to: req.URL, reason: fmt.Sprintf("more than %d redirects", maxRedirects)}
		}
		return nil
	}
}

// httpFailure explains a request that returned an error. A refused redirect
// comes with the redirect response (its body already closed) and is not a
// network failure, so it is named before the network classification.
func httpFailure(ctx context.Context, s Spec, resp *http.Response, err error, p phase, detail map[string]any) Result {
	if resp != nil {
		detail["status"] = resp.StatusCode
	}
	var re *redirectError
	if errors.As(err, &re) {
		detail["redirect_to"] = redact.URL(re.to.String())
		return withDetail(unhealthy("%s", re.reason), detail)
	}
	return withDetail(unhealthy("%s", netReason(ctx, s, err, p)), detail)
}

// judgeResponse reads up to maxBody of the body (the deadline still applies:
// a body that stalls is a timeout) and checks status and body.
func judgeResponse(ctx context.Context, s Spec, u *url.URL, resp *http.Response, re *regexp.Regexp, detail map[string]any) Result {
	detail["status"] = resp.StatusCode
	if final := resp.Request.URL; final.String() != u.String() {
		detail["final_url"] = redact.URL(final.String())
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return withDetail(unhealthy("%s", netReason(ctx, s, err, phaseAnswering)), detail)
	}
	if !statusOK(resp.StatusCode, s.ExpectStatus) {
		want := "2xx"
		if s.ExpectStatus != 0 {
			want = fmt.Sprint(s.ExpectStatus)
		}
		return withDetail(unhealthy("status %d, want %s", resp.StatusCode, want), detail)
	}
	if re != nil && !re.Match(body) {
		return withDetail(unhealthy("body does not match %s", s.ExpectBody), detail)
	}
	return Result{Healthy: true, Detail: detail}
}

func statusOK(got, want int) bool {
	if want == 0 {
		return got >= 200 && got <= 299
	}
	return got == want
}

func withDetail(r Result, d map[string]any) Result {
	if len(d) > 0 {
		r.Detail = d
	}
	return r
}
