package proc

import (
	"context"
	"net"
	"os"
	"slices"
	"testing"

	"github.com/shirou/gopsutil/v4/process"
)

// A loopback listener of this process is found by its port (PortHolder)
// and among this process's listening ports (what snapshots record).
func TestListenersFindThisProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint32(ln.Addr().(*net.TCPAddr).Port)
	h, err := PortHolder(context.Background(), port)
	if err != nil || h == nil || h.PID != int32(os.Getpid()) {
		t.Fatalf("PortHolder(%d) = %+v, %v; want this process (pid %d)", port, h, err, os.Getpid())
	}
	if ports := listenPorts(&process.Process{Pid: int32(os.Getpid())}); !slices.Contains(ports, port) {
		t.Fatalf("listenPorts of this process = %v, want %d in it", ports, port)
	}
	if h, err := PortHolder(context.Background(), 1); err != nil || h != nil {
		t.Fatalf("PortHolder(1) = %+v, %v; want nobody", h, err)
	}
}
