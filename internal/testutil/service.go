package testutil

import (
	"errors"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// FreeAddr returns a loopback address nobody listens on right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
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
