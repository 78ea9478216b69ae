package testutil

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// FreeAddr returns a loopback address nobody listens on right now, for a
// service the test starts later. Its port is below the ephemeral range (on
// Linux ip_local_port_range; Windows and macOS start at 49152), so no
// listener on port 0 — an agent's metrics, the page, another test's server —
// can be given it between now and the service's bind (a port freed from the
// ephemeral range was: the page took a service's port). Ports handed out are
// not handed out again in this process.
func FreeAddr(t testing.TB) string {
	t.Helper()
	for range 200 {
		port := 20000 + rand.IntN(ephemeralLow()-20000)
		if _, taken := handedOut.LoadOrStore(port, true); taken {
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		ln.Close()
		return addr
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

var handedOut sync.Map // port -> true

// ephemeralLow is the first port the OS gives a listener on port 0.
func ephemeralLow() int {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 21000 {
				return n
			}
		}
	}
	return 32768
}

// Healthy reports whether a testsvc at addr answers /health with 200.
func Healthy(addr string) bool {
	c := http.Client{Timeout: 500 * time.Millisecond}
	r, err := c.Get("http://" + addr + "/health")
	if err != nil {
		return false
	}
	r.Body.Close()
	return r.StatusCode == 200
}

// Get requests url and ignores the answer (testsvc's /control endpoints).
func Get(url string) {
	c := http.Client{Timeout: 2 * time.Second}
	if r, err := c.Get(url); err == nil {
		r.Body.Close()
	}
}

// KillPID kills process pid at once (SIGKILL; TerminateProcess on Windows):
// a service "killed from outside". A process already gone is fine.
func KillPID(t testing.TB, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Logf("kill pid %d: %v", pid, err)
	}
}
