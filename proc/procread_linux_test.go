package proc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// readProcFile reads what os.ReadFile reads, past its first buffer too
// (a status file is over 1 KiB), and a missing process is fs.ErrNotExist.
func TestReadProcFile(t *testing.T) {
	for _, p := range []string{"/proc/self/status", "/proc/loadavg", "/proc/self/cmdline"} {
		got, err := readProcFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// Both read the calling process's own file: compare what does not move.
		if p == "/proc/self/status" {
			got, want = got[:bytes.Index(got, []byte("\nState:"))], want[:bytes.Index(want, []byte("\nState:"))]
		}
		if p != "/proc/loadavg" && !bytes.Equal(got, want) {
			t.Fatalf("%s: read %q, os.ReadFile %q", p, got, want)
		}
		if len(got) == 0 {
			t.Fatalf("%s: read nothing", p)
		}
	}
	if st, _ := readProcFile("/proc/self/status"); len(st) <= 512 {
		t.Fatalf("status read as %d bytes: the test needs a file over the first buffer", len(st))
	}
	if _, err := readProcFile("/proc/0/stat"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing process: %v, want fs.ErrNotExist", err)
	}
}
