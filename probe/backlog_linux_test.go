package probe

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// fullListener returns a loopback address whose accept queue is full: Linux
// drops further SYNs, so a dial there hangs in "no connection" until its
// deadline. It is the only way to get a connect timeout without leaving
// 127.0.0.1.
func fullListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // backlog 0: one queued connection fills it
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sa.(*syscall.SockaddrInet4).Port}).String()
	for i := 0; i < 8; i++ {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if isTimeout(err) {
			return addr // the queue is full: the next dial hangs too
		}
		if err != nil {
			t.Fatalf("filling the accept queue: %v", err)
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("this kernel never filled the accept queue; connect timeouts cannot be provoked on loopback")
	return ""
}

func TestTCPTimeoutNoConnection(t *testing.T) {
	addr := fullListener(t)
	r := within(t, 5*300*time.Millisecond, func() Result {
		return run(Spec{Kind: KindTCP, Target: addr, Timeout: 300 * time.Millisecond})
	})
	wantUnhealthy(t, r, "timeout after 300ms (no connection)")
}

func TestHTTPTimeoutNoConnection(t *testing.T) {
	addr := fullListener(t)
	r := within(t, 5*300*time.Millisecond, func() Result {
		return run(Spec{Kind: KindHTTP, Target: "http://" + addr + "/health", Timeout: 300 * time.Millisecond})
	})
	wantUnhealthy(t, r, "timeout after 300ms (no connection)")
}
