package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// maxPEMSize bounds what the cert check reads: a certificate bundle is a few
// KiB; a path pointing at something huge is a mistake, not a bundle.
const maxPEMSize = 1 << 20

// probeCert checks the validity window of the certificates in a PEM file
// (s.Target is a path) or presented by a TLS server (s.Target is an https://
// URL; the chain is verified normally, through the service's proxy if its
// env names one). Healthy when every certificate is already valid and stays
// valid at least s.MinValid longer.
func probeCert(ctx context.Context, s Spec) Result {
	switch {
	case s.Target == "":
		return unhealthy("no certificate path or https:// URL to check")
	case strings.HasPrefix(strings.ToLower(s.Target), "https://"):
		return certFromURL(ctx, s)
	case strings.Contains(s.Target, "://"):
		return unhealthy("cert target must be a PEM file path or an https:// URL")
	}
	return bounded(ctx, s, "the file system did not answer", func() Result {
		certs, err := readPEMCerts(s.Target)
		if err != nil {
			return unhealthy("%s", err)
		}
		return judgeCerts(certs, s.MinValid)
	})
}

// readPEMCerts parses every CERTIFICATE block of the file, leaf first.
func readPEMCerts(path string) ([]*x509.Certificate, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("certificate file does not exist")
		}
		return nil, fmt.Errorf("open certificate file: %s", innerMessage(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPEMSize))
	if err != nil {
		return nil, fmt.Errorf("read certificate file: %s", innerMessage(err))
	}
	var certs []*x509.Certificate
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue // keys and parameters may share the file
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d in the file does not parse: %s", len(certs)+1, strings.TrimPrefix(err.Error(), "x509: "))
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no CERTIFICATE block in the file")
	}
	return certs, nil
}

// certFromURL dials the endpoint (directly or by CONNECT through the env's
// proxy), completes a verified TLS handshake and judges the peer's chain.
func certFromURL(ctx context.Context, s Spec) Result {
	u, err := url.Parse(s.Target)
	if err != nil || u.Host == "" {
		return unhealthy("invalid URL: want https:// and a host")
	}
	proxies := proxyFor(s.Env)
	proxy, err := proxies.forURL(u)
	if err != nil {
		return unhealthy("%s", err)
	}
	detail := map[string]any{}
	if proxy != nil {
		detail["proxy_env"] = proxies.usedVar()
	}
	t := &tracker{}
	var raw net.Conn
	if proxy != nil {
		raw, err = dialVia(ctx, proxy, hostPort(u), t)
	} else {
		raw, err = trackedDial(t)(ctx, "tcp", hostPort(u))
	}
	if err != nil {
		return withDetail(unhealthy("%s", netReason(ctx, s, err, t.phase())), detail)
	}
	defer raw.Close()
	tc := tls.Client(raw, tlsConfig(u.Hostname()))
	if err := tc.HandshakeContext(ctx); err != nil {
		return withDetail(unhealthy("%s", netReason(ctx, s, err, t.phase())), detail)
	}
	r := judgeCerts(tc.ConnectionState().PeerCertificates, s.MinValid)
	for k, v := range detail {
		r.Detail[k] = v
	}
	return r
}

// judgeCerts is healthy when every certificate is valid now and for at least
// minValid more. Detail describes the one that expires first: it decides how
// long the whole chain stays usable.
func judgeCerts(certs []*x509.Certificate, minValid time.Duration) Result {
	if len(certs) == 0 {
		return unhealthy("no certificate presented")
	}
	t := now()
	first := 0
	for i, c := range certs {
		if c.NotAfter.Before(certs[first].NotAfter) {
			first = i
		}
	}
	c := certs[first]
	remaining := c.NotAfter.Sub(t)
	d := map[string]any{
		"not_after":       c.NotAfter.UTC().Format(time.RFC3339),
		"subject_cn":      c.Subject.CommonName,
		"remaining_hours": math.Floor(remaining.Hours()*10) / 10,
		"certificates":    len(certs),
	}
	if first > 0 {
		d["index"] = first // 0 is the leaf
	}
	for i, c := range certs {
		if t.Before(c.NotBefore) {
			return withDetail(unhealthy("%s is not valid before %s", certName(i, c), c.NotBefore.UTC().Format(time.RFC3339)), d)
		}
	}
	switch {
	case remaining < 0:
		return withDetail(unhealthy("%s expired %s ago", certName(first, c), fmtDur(-remaining)), d)
	case remaining < minValid:
		return withDetail(unhealthy("%s expires in %s, want at least %s", certName(first, c), fmtDur(remaining), fmtDur(minValid)), d)
	}
	return Result{Healthy: true, Detail: d}
}

// certName is "certificate" for the leaf and names the others by position
// and common name, so a reason about an intermediate says which one.
func certName(i int, c *x509.Certificate) string {
	if i == 0 {
		return "certificate"
	}
	return fmt.Sprintf("certificate %d (CN=%s)", i+1, c.Subject.CommonName)
}
