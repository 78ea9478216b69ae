//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/svcenv"
	"svcctl/internal/testutil"
)

// The PATH trap: `which prog` finds it, yet the service fails "executable
// not found in PATH", and config check passed. Now config check warns,
// naming the PATH a service gets, where this shell's PATH finds the
// program and what to write; the start that fails says the same; another
// service starts all the same; and search_path fixes it. Failed before:
// config check said nothing and the start said only "not found in PATH".
func TestPathTrap(t *testing.T) {
	bin := t.TempDir() // a person's ~/.local/bin
	addr := testutil.FreeAddr(t)
	prog := filepath.Join(bin, "svcctl-path-trap")
	script := fmt.Sprintf("#!/bin/sh\nexec %q --addr %q\n", testsvcBin, addr)
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH")) // the shell's PATH finds it
	good := testutil.FreeAddr(t)
	trap := fmt.Sprintf(`
[[service]]
name = "trap"
command = ["svcctl-path-trap"]
start_timeout = "5s"
  [service.health]
  http = "http://%s/health"
  confirm = "0s"
`, addr)
	cfg, _ := writeConfig(t, "", trap+webService("good", good, "10m"))

	check := svcctl(t, "config", "check", "--config", cfg)
	want := fmt.Sprintf(`svc-ctl: warning: service "trap": command: "svcctl-path-trap" is not in the PATH a service gets (%s); this svc-ctl's own PATH finds it at %s: write that absolute path in the command, or add search_path = [%q]`,
		svcenv.BasePath(nil), prog, bin)
	if check.code != 0 || !strings.Contains(check.stderr, want) {
		t.Fatalf("config check: want exit 0 and the warning\n%s\ngot %+v", want, check)
	}
	r := svcctl(t, "start", "--all", "--config", cfg)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, `"svcctl-path-trap" is not in the PATH a service gets (`+svcenv.BasePath(nil)+")") ||
		!strings.Contains(r.stdout+r.stderr, "finds it at "+prog) {
		t.Fatalf("start --all: want the trap named with where the PATH finds it: %+v", r)
	}
	if !testutil.Healthy(good) {
		t.Fatalf("the other service did not start beside the missing program: %+v", r)
	}
	fixed, _ := writeConfig(t, "", strings.Replace(trap, `command = ["svcctl-path-trap"]`,
		fmt.Sprintf("command = [\"svcctl-path-trap\"]\nsearch_path = [%q]", bin), 1))
	if r := svcctl(t, "config", "check", "--config", fixed); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Fatalf("config check with search_path: %+v", r)
	}
	if r := svcctl(t, "start", "trap", "--config", fixed); r.code != 0 || !testutil.Healthy(addr) {
		t.Fatalf("start with search_path: %+v", r)
	}
}
