package probe

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"

	"golang.org/x/net/http/httpproxy"
)

// proxyRules are the proxy settings of a service's env, and a note of which
// variable named the proxy a check went through.
type proxyRules struct {
	fn       func(*url.URL) (*url.URL, error)
	httpVar  string // the variable the http:// proxy came from ("" = none)
	httpsVar string

	mu   sync.Mutex
	used string
}

// proxyFor reads the proxy rules of the service's env: HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY, upper case first as net/http reads them, and never
// the agent's own environment. As in net/http, localhost and loopback
// addresses are never proxied. A proxy variable that does not parse makes
// every request fail: httpproxy would silently go direct, and a check that
// quietly takes another path than the configured one proves nothing.
func proxyFor(env map[string]string) *proxyRules {
	cfg := httpproxy.Config{NoProxy: envAny(env, "NO_PROXY", "no_proxy")}
	p := &proxyRules{}
	p.httpVar, cfg.HTTPProxy = envAnyNamed(env, "HTTP_PROXY", "http_proxy")
	p.httpsVar, cfg.HTTPSProxy = envAnyNamed(env, "HTTPS_PROXY", "https_proxy")
	for _, v := range []struct{ name, val string }{{p.httpVar, cfg.HTTPProxy}, {p.httpsVar, cfg.HTTPSProxy}} {
		if v.val != "" && !validProxy(v.val) {
			// the value is not quoted: it may hold a password
			bad := fmt.Errorf("%s in the service env is not a valid proxy URL", v.name)
			p.fn = func(*url.URL) (*url.URL, error) { return nil, bad }
			return p
		}
	}
	p.fn = cfg.ProxyFunc()
	return p
}

// validProxy mirrors httpproxy's parsing: a value without a scheme is
// taken as http://.
func validProxy(v string) bool {
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		return true
	}
	u, err := url.Parse("http://" + v)
	return err == nil && u.Host != ""
}

// forURL is the proxy for u, nil for a direct connection.
func (p *proxyRules) forURL(u *url.URL) (*url.URL, error) {
	pu, err := p.fn(u)
	if pu != nil {
		p.mu.Lock()
		p.used = p.httpVar
		if u.Scheme == "https" {
			p.used = p.httpsVar
		}
		p.mu.Unlock()
	}
	return pu, err
}

// forRequest is forURL in the shape http.Transport.Proxy wants.
func (p *proxyRules) forRequest(req *http.Request) (*url.URL, error) { return p.forURL(req.URL) }

// usedVar names the env variable of the proxy a check went through ("" when
// it went direct). Detail shows this name, never the value: env values stay
// out of results.
func (p *proxyRules) usedVar() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

func envAny(env map[string]string, names ...string) string {
	_, v := envAnyNamed(env, names...)
	return v
}

// envAnyNamed returns the first of names set to a non-empty value, and it.
func envAnyNamed(env map[string]string, names ...string) (string, string) {
	for _, n := range names {
		if v := env[n]; v != "" {
			return n, v
		}
	}
	return "", ""
}

// dialVia opens a tunnel to addr through an HTTP proxy with CONNECT, as
// net/http does for https:// targets. The whole exchange is bounded by ctx.
func dialVia(ctx context.Context, proxy *url.URL, addr string, t *tracker) (net.Conn, error) {
	conn, err := trackedDial(t)(ctx, "tcp", hostPort(proxy))
	if err != nil {
		return nil, fmt.Errorf("dial proxy: %w", err)
	}
	if proxy.Scheme == "https" {
		tc := tls.Client(conn, tlsConfig(proxy.Hostname()))
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("tls to proxy: %w", err)
		}
		conn = tc
	}
	if err := connect(ctx, conn, proxy, addr); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// connect sends CONNECT addr on conn and reads the proxy's answer. Closing
// the conn when ctx ends is what bounds a proxy that never answers.
func connect(ctx context.Context, conn net.Conn, proxy *url.URL, addr string) error {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	req.Header.Set("User-Agent", userAgent)
	if u := proxy.User; u != nil {
		pw, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	if err := req.Write(conn); err != nil {
		return fmt.Errorf("write CONNECT to proxy: %w", ctxErr(ctx, err))
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return fmt.Errorf("read proxy answer: %w", ctxErr(ctx, err))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("proxy refused CONNECT to %s: %s", addr, resp.Status)
	}
	return nil
}

// ctxErr prefers the context's error: a conn closed by context.AfterFunc
// reports "use of closed network connection", which hides the timeout.
func ctxErr(ctx context.Context, err error) error {
	if ce := ctx.Err(); ce != nil {
		return ce
	}
	return err
}
