package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The counter is what keeps a drill from rebooting for ever: each boot must
// see the next number, from a real file, and a damaged counter must stop it.
func TestNextBoot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "drill", "boot")
	for want := 1; want <= 3; want++ {
		got, err := nextBoot(path)
		if err != nil || got != want {
			t.Fatalf("boot %d: nextBoot = %d, %v", want, got, err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "3\n" {
		t.Fatalf("counter file holds %q, want \"3\\n\"", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temp files left beside the counter: %v", entries)
	}
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := nextBoot(path); err == nil {
		t.Fatalf("damaged counter: nextBoot = %d, want an error", n)
	}
}

func TestResultMarker(t *testing.T) {
	m := result{rc: 0, stdout: []byte("{\n  \"checks\": []\n}\n"), stderr: []byte("note: x\n")}.marker("verify")
	if !m.OK || string(m.Data) != `{"checks":[]}` || m.Output != "note: x\n" {
		t.Errorf("JSON output: %+v", m)
	}
	m = result{rc: 1, stdout: []byte("not json\n"), stderr: []byte("error: y\n")}.marker("install")
	if m.OK || m.Data != nil || m.Output != "not json\nerror: y\n" || m.RC != 1 {
		t.Errorf("text output: %+v", m)
	}
	big := strings.Repeat("z", maxOutput+10)
	m = result{rc: 0, stdout: []byte(big)}.marker("status")
	if len(m.Output) > maxOutput+len("\n[truncated]") || !strings.HasSuffix(m.Output, "[truncated]") {
		t.Errorf("long output not capped: %d bytes", len(m.Output))
	}
}
