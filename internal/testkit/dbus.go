package testkit

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// DBus starts a bus of the test's own (`dbus-daemon --session` on a socket
// in the test's temporary directory) and returns its address, for a test
// that stands a fake service on it: the desktop notification server, or
// systemd's manager standing for the system bus. The daemon is killed (by
// its pid) and reaped when the test ends. Where dbus-daemon is not
// installed, the test is skipped with the package to install.
func DBus(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed (Debian: apt-get install dbus-daemon; .ci/run installs it)")
	}
	sock := filepath.Join(t.TempDir(), "bus")
	cmd := exec.Command(bin, "--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path="+sock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}
