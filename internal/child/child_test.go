package child

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// Run, Output and CombinedOutput behave as exec's: the exit status, the
// output, standard error kept in the ExitError when not redirected; and the
// registry forgets every process once it was waited for.
func TestCmdAsExecs(t *testing.T) {
	var ee *exec.ExitError
	if err := helper("exit3").Run(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Run = %v, want exit status 3", err)
	}
	out, err := helper("talk").Output()
	if !errors.As(err, &ee) || ee.ExitCode() != 4 || strings.TrimSpace(string(out)) != "to stdout" ||
		strings.TrimSpace(string(ee.Stderr)) != "to stderr" {
		t.Fatalf("Output = %q, %v (stderr %q)", out, err, ee.Stderr)
	}
	out, err = helper("talk").CombinedOutput()
	if !errors.As(err, &ee) || !strings.Contains(string(out), "to stdout") || !strings.Contains(string(out), "to stderr") {
		t.Fatalf("CombinedOutput = %q, %v", out, err)
	}
	c := helper("exit3")
	c.Stdout = new(strings.Builder)
	if _, err := c.Output(); err == nil {
		t.Fatal("Output with Stdout set: want an error, as exec's")
	}
	if err := Command("/no/such/program").Run(); err == nil {
		t.Fatal("a missing program started")
	}
	registry.mu.Lock()
	n := len(registry.pids)
	registry.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d pids still registered after every Cmd was waited for", n)
	}
}
