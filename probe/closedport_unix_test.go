//go:build unix

package probe

import (
	"net"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// holdClosedPort binds a TCP socket to 127.0.0.1:0 without listening on it
// and keeps it open until the test ends: a connection to its port is
// refused, and the kernel gives the port to no one else meanwhile.
func holdClosedPort(t *testing.T) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fd) // the checks these tests start must not inherit it
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*unix.SockaddrInet4).Port))
}
