package proc

import (
	"os"
	"strconv"
	"testing"
)

// Listens finds the server's listening socket by its own descriptors, and
// no other process's.
func TestListens(t *testing.T) {
	sv := startShape(t, shapeNamed(t, "wrapper"), "", "testsvc")
	tr := settled(t, sv.c.Instance, 2)
	port, _ := strconv.Atoi(sv.port)
	for _, m := range tr.Members {
		if got, want := Listens(m, uint32(port)), m.PID == sv.pid; got != want {
			t.Errorf("Listens(pid %d, %d) = %v, want %v", m.PID, port, got, want)
		}
	}
	srv, _ := tr.Member(sv.pid)
	if Listens(srv, uint32(port)+1) {
		t.Error("the server listens on a port it does not")
	}
	self, _ := IdentityOf(int32(os.Getpid()))
	if Listens(Member{Identity: self}, uint32(port)) {
		t.Error("the test process listens on the server's port")
	}
}
