//go:build !windows

package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
)

// A cron line runs through /bin/sh: cron is a Unix mechanism, and the
// characters it allows in the binary's path (no backslash) refuse every
// Windows path by design. The Windows backstop (Task Scheduler) is checked
// in backstop_test.go.

// A cron backstop's first run executes the real command (here the test
// binary standing in for `svc-ctl start --all`), and only the file that run
// wrote counts as proof.
func TestBackstopCronRunsTheRealCommand(t *testing.T) {
	f := useFakeHost(t, sysv, false)
	osRunner = execRunner{} // a real child process
	self := copySelf(t)     // the go-build path is refused, as a `go run` binary would be
	f.exe = self
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "30s")
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SVCCTL_INSTALL_HELPER", "start")
	t.Setenv("SVCCTL_HELPER_STATE", state)
	testkit.Replace(t, &cronDaemonRunning, func() (bool, bool) { return true, true })

	res, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "cron" || res.LastRun.IsZero() || !strings.Contains(res.Message, "ran it once") {
		t.Errorf("result = %+v", res)
	}
	cronPath := host.path("/etc/cron.d/svc-ctl-backstop")
	fi, err := os.Stat(cronPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("cron file mode %v, want 0644 (cron ignores group/world-writable files)", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(cronPath)
	if want := "*/10 * * * * root " + self + " start --all --scheduled --config " + cfg + "\n"; !strings.HasSuffix(string(b), want) {
		t.Errorf("cron line:\n%s\nwant suffix %q", b, want)
	}

	info, err := BackstopStatus(context.Background(), BackstopOptions{StateDir: state})
	if err != nil || !info.Registered || info.Kind != "cron" || info.Every != 10*time.Minute || info.LastRun.IsZero() {
		t.Errorf("status = %+v, %v", info, err)
	}
	if r, err := UninstallBackstop(context.Background(), BackstopOptions{}); err != nil || r.Action != "removed" {
		t.Fatalf("uninstall: %+v, %v", r, err)
	}
	if _, err := os.Stat(cronPath); !errors.Is(err, os.ErrNotExist) {
		t.Error("cron file left behind")
	}
	if r, _ := UninstallBackstop(context.Background(), BackstopOptions{}); r.Action != "none" {
		t.Errorf("second uninstall: %+v", r)
	}
}

// copySelf copies the test binary to a stable path, to run as svc-ctl.
func copySelf(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "svc-ctl")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
