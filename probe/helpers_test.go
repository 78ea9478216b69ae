package probe

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/internal/redact/redacttest"
	"svcctl/internal/testkit"
)

// quietLog swallows the server-side log of handshakes a test refuses on purpose.
var quietLog = log.New(io.Discard, "", 0)

// helperEnv makes the test binary, re-executed by an exec probe, act as a
// small health command instead of running the tests.
const helperEnv = "SVCCTL_PROBE_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper is the health command side of the exec tests.
func runHelper(mode string) int {
	switch mode {
	case "spawn": // start a grandchild in our process group, report its pid, then hang
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), helperEnv+"=linger")
		if err := c.Start(); err != nil {
			fmt.Println("start the grandchild:", err)
			return 2
		}
		if err := os.WriteFile(os.Getenv("PROBE_PIDFILE"), []byte(fmt.Sprint(c.Process.Pid)), 0o600); err != nil {
			return 2
		}
		time.Sleep(60 * time.Second)
		return 0
	case "linger": // stay a while
		time.Sleep(60 * time.Second)
		return 0
	case "leave-child": // start a lingering child, report its pid, exit $PROBE_EXIT (0) at once
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), helperEnv+"=linger")
		if err := c.Start(); err != nil {
			fmt.Println("start child:", err)
			return 2
		}
		if err := os.WriteFile(os.Getenv("PROBE_PIDFILE"), []byte(fmt.Sprint(c.Process.Pid)), 0o600); err != nil {
			return 2
		}
		return exitCode()
	case "exit-with": // exit $PROBE_EXIT at once (true and false on Unix; not "exit": env values are redacted, and "exit status 1" must survive)
		return exitCode()
	case "chatter": // more output than is kept, the end marked
		fmt.Print(strings.Repeat("x", 10000))
		fmt.Fprint(os.Stderr, "\nEND-MARKER")
		return 3
	case "corpus": // print every line of the shared redaction corpus
		for _, c := range redacttest.Cases {
			fmt.Println(c.In)
		}
		return 1
	case "env": // check env and dir without printing the expected values
		cwd, _ := os.Getwd()
		fmt.Println("cwd=" + cwd)
		fmt.Println("secret=" + os.Getenv("PROBE_SECRET")) // must come back scrubbed
		if os.Getenv("PROBE_SECRET") != "s3cr3t-value" || os.Getenv("AGENT_ONLY") != "" || os.Getenv("PATH") == "" {
			fmt.Println("env mismatch")
			return 1
		}
		return 0
	}
	fmt.Println("unknown helper mode", mode)
	return 2
}

// exitCode is $PROBE_EXIT, 0 when unset.
func exitCode() int {
	n, _ := strconv.Atoi(os.Getenv("PROBE_EXIT"))
	return n
}

// within fails the test when fn took longer than limit: a guard against a
// check that hangs past its timeout, not a speed claim.
func within(t *testing.T, limit time.Duration, fn func() Result) Result {
	t.Helper()
	start := time.Now()
	r := fn()
	if took := time.Since(start); took > limit {
		t.Fatalf("check returned after %v, want well within %v (timeout not enforced?): %+v", took, limit, r)
	}
	return r
}

// wantUnhealthy asserts the result is unhealthy with exactly this reason.
func wantUnhealthy(t *testing.T, r Result, reason string) {
	t.Helper()
	if r.Healthy {
		t.Fatalf("healthy, want unhealthy with %q: %+v", reason, r)
	}
	if r.Reason != reason {
		t.Fatalf("reason = %q, want %q (detail %v)", r.Reason, reason, r.Detail)
	}
}

func wantHealthy(t *testing.T, r Result) {
	t.Helper()
	if !r.Healthy {
		t.Fatalf("unhealthy: %q (detail %v)", r.Reason, r.Detail)
	}
	if r.Reason != "" {
		t.Fatalf("healthy with reason %q", r.Reason)
	}
}

// holdListener accepts connections and never answers; the conns are closed
// at cleanup.
func holdListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// closedAddr is a loopback address where nothing listens.
// closedAddr is a loopback address where nothing listens. The port is held
// by a socket that is bound but never listening (holdClosedPort), so no
// listener of a test running in parallel can be given it while this test
// expects "connection refused" from it.
func closedAddr(t *testing.T) string {
	t.Helper()
	return holdClosedPort(t)
}

// trust makes the probe trust srv's certificate until the test ends: every
// probe of the test binary would, so a test that calls it runs alone.
func trust(t *testing.T, certs ...*x509.Certificate) {
	t.Helper()
	testkit.ProcessWide(t, "the probe's extra root certificates")
	testkit.Replace(t, &extraRootCerts, append([]*x509.Certificate(nil), certs...))
}

// testProxy is a forward proxy on loopback that counts what it is asked:
// plain requests it answers itself ("ok via proxy"), CONNECT it tunnels to
// tunnelTo whatever host was asked for (so https://example.com can reach a
// local httptest TLS server without any DNS).
type testProxy struct {
	URL      string
	tunnelTo string
	count    atomic.Int32
	mu       sync.Mutex
	seen     []string // request URIs and CONNECT hosts
}

func startProxy(t *testing.T, tunnelTo string) *testProxy {
	t.Helper()
	p := &testProxy{tunnelTo: tunnelTo}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func (p *testProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.count.Add(1)
	p.mu.Lock()
	if r.Method == http.MethodConnect {
		p.seen = append(p.seen, "CONNECT "+r.Host)
	} else {
		p.seen = append(p.seen, r.Method+" "+r.RequestURI)
	}
	p.mu.Unlock()
	if r.Method != http.MethodConnect {
		io.WriteString(w, "ok via proxy")
		return
	}
	up, err := net.Dial("tcp", p.tunnelTo)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() { io.Copy(up, brw); up.Close() }()
	io.Copy(conn, up)
	conn.Close()
}

func (p *testProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

func run(s Spec) Result { return Run(context.Background(), s) }
