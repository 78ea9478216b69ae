//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestServiceDoesNotInheritCallersDescriptors: a descriptor the caller left
// open without close-on-exec (a CI runner's or a tool's pipe) must not reach
// the service `svc-ctl start` spawns: the service would hold the pipe open
// for its whole life, and whoever reads the other end would wait forever
// for the EOF that svc-ctl's own exit should give.
func TestServiceDoesNotInheritCallersDescriptors(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "1h"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(svcctlBin, "--config", cfg, "start", "web")
	cmd.ExtraFiles = []*os.File{w} // fd 3 of svc-ctl, inheritable: as a careless parent leaves it
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("start: %v\n%s", err, &out)
	}
	w.Close()
	got := make(chan error, 1)
	go func() { _, err := io.ReadAll(r); got <- err }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pipe svc-ctl inherited is still open after it exited: the service it started holds it")
	}
}
