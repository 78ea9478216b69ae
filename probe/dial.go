package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/url"
	"strings"
)

// extraRootCerts are trusted in addition to the system roots. Tests add the
// certificate of an httptest TLS server here; nothing else may.
var extraRootCerts []*x509.Certificate

// tlsConfig verifies the chain normally (system roots plus extraRootCerts).
// serverName may be "" when net/http fills it in.
func tlsConfig(serverName string) *tls.Config {
	cfg := &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if len(extraRootCerts) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		for _, c := range extraRootCerts {
			pool.AddCert(c)
		}
		cfg.RootCAs = pool
	}
	return cfg
}

// trackedDial dials with the context (its deadline is the check's timeout)
// and records that a connection was made, so a timeout after this point reads
// "connected, no answer" rather than "no connection".
func trackedDial(t *tracker) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			t.reach(phaseConnected)
		}
		return c, err
	}
}

// hostPort is u's host and port, the scheme's default port filled in and the
// name lower-cased: "evil.example:80".
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
