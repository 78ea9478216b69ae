package probe

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"

	"golang.org/x/net/http/httpproxy"
)

// errBadProxy replaces httpproxy's own error, whose text quotes the proxy
// URL (and so any password in it).
var errBadProxy = errors.New("invalid proxy URL in the service env (HTTP_PROXY, HTTPS_PROXY or lower-case forms)")

// proxyFor returns the proxy rules of the service's env: HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY, upper case first as net/http reads them, and never
// the agent's own environment. As in net/http, localhost and loopback
// addresses are never proxied.
func proxyFor(env map[string]string) func(*url.URL) (*url.URL, error) {
	cfg := httpproxy.Config{
		HTTPProxy:  envAny(env, "HTTP_PROXY", "http_proxy"),
		HTTPSProxy: envAny(env, "HTTPS_PROXY", "https_proxy"),
		NoProxy:    envAny(env, "NO_PROXY", "no_proxy"),
	}
	fn := cfg.ProxyFunc()
	return func(u *url.URL) (*url.URL, error) {
		p, err := fn(u)
		if err != nil {
			return nil, errBadProxy
		}
		return p, nil
	}
}

func envAny(env map[string]string, names ...string) string {
	for _, n := range names {
		if v, ok := env[n]; ok && v != "" {
			return v
		}
	}
	return ""
}

// proxyRecorder remembers the proxy a request went through, for Detail.
type proxyRecorder struct {
	fn   func(*url.URL) (*url.URL, error)
	mu   sync.Mutex
	used *url.URL
}

func (p *proxyRecorder) proxy(req *http.Request) (*url.URL, error) {
	u, err := p.fn(req.URL)
	if u != nil {
		p.mu.Lock()
		p.used = u
		p.mu.Unlock()
	}
	return u, err
}

// shown is the proxy used, redacted, or "" when the request went direct.
func (p *proxyRecorder) shown() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used == nil {
		return ""
	}
	return redactURL(p.used.String())
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
