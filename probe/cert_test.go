package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCert is a self-signed certificate valid for 127.0.0.1, made at test
// time with the validity window the test needs.
type testCert struct {
	cert *x509.Certificate
	pem  []byte
	tls  tls.Certificate
}

func makeCert(t *testing.T, cn string, notBefore, notAfter time.Time) testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return testCert{
		cert: c,
		pem:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		tls:  tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c},
	}
}

func writePEM(t *testing.T, parts ...[]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cert.pem")
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCertFile(t *testing.T) {
	t.Parallel()
	n := time.Now()
	valid := makeCert(t, "valid.test", n.Add(-time.Hour), n.Add(30*24*time.Hour))
	soon := makeCert(t, "soon.test", n.Add(-time.Hour), n.Add(10*time.Hour))
	expired := makeCert(t, "expired.test", n.Add(-48*time.Hour), n.Add(-2*time.Hour))
	future := makeCert(t, "future.test", n.Add(time.Hour), n.Add(48*time.Hour))
	keyBlock := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte("not parsed")})

	r := run(Spec{Kind: KindCert, Target: writePEM(t, keyBlock, valid.pem), MinValid: 72 * time.Hour})
	wantHealthy(t, r)
	if r.Detail["subject_cn"] != "valid.test" || r.Detail["not_after"] != valid.cert.NotAfter.UTC().Format(time.RFC3339) {
		t.Fatalf("detail = %v, want the valid leaf's CN and not_after", r.Detail)
	}
	if h, _ := r.Detail["remaining_hours"].(float64); h < 719 || h > 720 {
		t.Fatalf("remaining_hours = %v, want about 720", r.Detail["remaining_hours"])
	}

	cases := []struct {
		name, path string
		min        time.Duration
		want       string
	}{
		{"expiring", writePEM(t, soon.pem), 72 * time.Hour, "certificate expires in 10h, want at least 72h"},
		{"expiring but enough", writePEM(t, soon.pem), 9 * time.Hour, ""},
		{"expired", writePEM(t, expired.pem), 0, "certificate expired 2h ago"},
		{"not yet valid", writePEM(t, future.pem), 0, "certificate is not valid before " + future.cert.NotBefore.UTC().Format(time.RFC3339)},
		{"bundle: second expiring", writePEM(t, valid.pem, soon.pem), 72 * time.Hour, "certificate 2 (CN=soon.test) expires in 10h, want at least 72h"},
		{"no certificate", writePEM(t, keyBlock), 0, "no CERTIFICATE block in the file"},
		{"missing", filepath.Join(t.TempDir(), "none.pem"), 0, "certificate file does not exist"},
	}
	for _, c := range cases {
		r := run(Spec{Kind: KindCert, Target: c.path, MinValid: c.min})
		if c.want == "" {
			if !r.Healthy {
				t.Errorf("%s: unhealthy %q, want healthy", c.name, r.Reason)
			}
			continue
		}
		if r.Healthy || r.Reason != c.want {
			t.Errorf("%s: healthy=%v reason %q, want %q", c.name, r.Healthy, r.Reason, c.want)
		}
	}
}

func TestCertFileBundleDetailNamesFirstToExpire(t *testing.T) {
	t.Parallel()
	n := time.Now()
	leaf := makeCert(t, "leaf.test", n.Add(-time.Hour), n.Add(30*24*time.Hour))
	inter := makeCert(t, "intermediate.test", n.Add(-time.Hour), n.Add(20*24*time.Hour))
	r := run(Spec{Kind: KindCert, Target: writePEM(t, leaf.pem, inter.pem), MinValid: 72 * time.Hour})
	wantHealthy(t, r)
	if r.Detail["subject_cn"] != "intermediate.test" || r.Detail["index"] != 1 || r.Detail["certificates"] != 2 {
		t.Fatalf("detail = %v, want the intermediate (index 1 of 2)", r.Detail)
	}
}

// tlsServer serves c on loopback.
func tlsServer(t *testing.T, c testCert) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{c.tls}}
	srv.Config.ErrorLog = quietLog // refused handshakes are part of the tests
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestCertURL(t *testing.T) {
	n := time.Now()
	valid := makeCert(t, "valid.test", n.Add(-time.Hour), n.Add(30*24*time.Hour))
	soon := makeCert(t, "soon.test", n.Add(-time.Hour), n.Add(10*time.Hour))
	validSrv, soonSrv := tlsServer(t, valid), tlsServer(t, soon)

	r := run(Spec{Kind: KindCert, Target: validSrv.URL, MinValid: 72 * time.Hour, Timeout: 2 * time.Second})
	if r.Healthy || !strings.Contains(r.Reason, "tls: certificate signed by unknown authority") {
		t.Fatalf("untrusted: healthy=%v reason %q, want the chain verified and refused", r.Healthy, r.Reason)
	}

	trust(t, valid.cert, soon.cert)
	r = run(Spec{Kind: KindCert, Target: validSrv.URL + "/", MinValid: 72 * time.Hour, Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if r.Detail["subject_cn"] != "valid.test" {
		t.Fatalf("detail = %v, want the server's certificate", r.Detail)
	}
	r = run(Spec{Kind: KindCert, Target: soonSrv.URL, MinValid: 72 * time.Hour, Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "certificate expires in 10h, want at least 72h")
}

func TestCertURLThroughProxy(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = quietLog // the probe hangs up after the handshake
	srv.StartTLS()
	defer srv.Close()
	trust(t, srv.Certificate())
	p := startProxy(t, srv.Listener.Addr().String())
	r := run(Spec{Kind: KindCert, Target: "https://example.com", Env: map[string]string{"HTTPS_PROXY": p.URL},
		MinValid: 72 * time.Hour, Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if got := p.requests(); len(got) != 1 || got[0] != "CONNECT example.com:443" {
		t.Fatalf("proxy saw %v, want one CONNECT example.com:443", got)
	}
	if r.Detail["proxy_env"] != "HTTPS_PROXY" {
		t.Fatalf("detail proxy_env = %v, want HTTPS_PROXY", r.Detail["proxy_env"])
	}
}

func TestCertURLTimeoutAndRefused(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	addr := holdListener(t)
	r := within(t, 5*timeout, func() Result {
		return run(Spec{Kind: KindCert, Target: "https://" + addr, Timeout: timeout})
	})
	wantUnhealthy(t, r, "timeout after 300ms (connected, no answer)")
	wantUnhealthy(t, run(Spec{Kind: KindCert, Target: "https://" + closedAddr(t), Timeout: 2 * time.Second}), "connection refused")
	wantUnhealthy(t, run(Spec{Kind: KindCert, Target: "http://" + addr}), "cert target must be a PEM file path or an https:// URL")
}
