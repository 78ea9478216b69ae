package benchkit

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"time"
)

// Floor is bench/memfloor's floor program running as a child of the bench:
// a Go program that keeps one modernc.org/sqlite file open and, every
// interval, makes one HTTP GET and inserts one row. It is what the agent is
// read against: the smallest program this stack allows that does what a
// watchdog's idle cycle does.
type Floor struct {
	PID int
	cmd *exec.Cmd
}

// BuildFloor builds bench/memfloor into the work directory.
func (k *Kit) BuildFloor(ctx context.Context) (string, error) {
	// Without libc, as the agent ships (CGO_ENABLED=0): a cgo build maps
	// libc too, about 1 MiB more of the floor's RSS.
	return goBuild(ctx, k.Dir, "memfloor", "./bench/memfloor", "CGO_ENABLED=0")
}

// FloorURL serves "ok" on a loopback port from the bench process itself for
// the floor programs to GET, until the end of the run.
func (k *Kit) FloorURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen for the floor program's GET: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(ln)
	k.Defer(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/health", nil
}

// StartFloor starts the floor program (bin, from BuildFloor) with its
// SQLite file in a fresh directory, GETting url every `every`; it is killed
// at the end of the run.
func (k *Kit) StartFloor(bin, url string, every time.Duration) (*Floor, error) {
	dir, err := k.SubDir("floor")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-child", "-db", filepath.Join(dir, "floor.db"), "-url", url, "-every", every.String())
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the floor program: %w", err)
	}
	f := &Floor{PID: cmd.Process.Pid, cmd: cmd}
	k.Defer(f.Stop)
	return f, nil
}

// Stop kills the floor program and waits for it; safe to call twice.
func (f *Floor) Stop() {
	if f.cmd.ProcessState != nil {
		return
	}
	f.cmd.Process.Kill()
	f.cmd.Wait()
}
