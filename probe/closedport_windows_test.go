package probe

import (
	"net"
	"testing"
)

// holdClosedPort is a loopback address where nothing listens: the port of a
// listener opened and closed at once (Windows gives a closed port back to a
// new listener far less eagerly than Linux reuses it).
func holdClosedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
