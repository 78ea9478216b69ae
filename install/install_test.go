package install

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/winsvc"
)

func TestInstallRefusesBrokenConfigBeforeTouchingAnything(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(cfg, []byte("[agent]\ndrain_timeuot = \"30s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func() error{
		"agent": func() error {
			_, err := Install(context.Background(), Request{ConfigFlag: cfg})
			return err
		},
		"backstop": func() error {
			_, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg})
			return err
		},
	} {
		err := run()
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: err = %v, want a *ConfigError", name, err)
		}
		if !strings.Contains(err.Error(), "drain_timeuot") {
			t.Errorf("%s: error does not name the bad key: %v", name, err)
		}
	}
	if f.built != 0 || len(f.mgr.calls) != 0 || len(f.run.got()) != 0 {
		t.Errorf("touched the system with a broken config: managers %d, calls %v, commands %v", f.built, f.mgr.calls, f.run.got())
	}
	if entries, _ := os.ReadDir(host.root); len(entries) != 0 {
		t.Errorf("files written with a broken config: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state dir created with a broken config")
	}
}

func TestInstallIsIdempotent(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "30s")
	ctx := context.Background()

	res, err := Install(ctx, Request{ConfigFlag: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "installed" || res.Message != "installed and started svc-ctl (linux-systemd, system)" {
		t.Errorf("first install: %+v", res)
	}
	// What the fake "wrote" is what we rendered: keep it as the installed definition.
	p, _ := NewPlan(Request{ConfigFlag: cfg})
	f.mgr.def = p.Unit.Content
	if fi, err := os.Stat(filepath.Join(dir, "state")); err != nil || !privateDir(fi) {
		t.Errorf("state dir not prepared (0700): %v, %v", fi, err)
	}

	f.mgr.calls = nil
	res, err = Install(ctx, Request{ConfigFlag: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "restarted" || !strings.HasPrefix(res.Message, "already installed; restarted") {
		t.Errorf("second install: %+v", res)
	}
	if got := strings.Join(f.mgr.calls, " "); got != "restart" {
		t.Errorf("second install calls = %q, want only a restart", got)
	}

	writeConfig(t, dir, "2m") // drain_timeout changed: the unit's TimeoutStopSec must follow
	f.mgr.calls = nil
	res, err = Install(ctx, Request{ConfigFlag: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "updated" {
		t.Errorf("install after a drain_timeout change: %+v", res)
	}
	if got := strings.Join(f.mgr.calls, " "); got != "stop uninstall install start" {
		t.Errorf("update calls = %q", got)
	}
}

func TestInstallSaysWhenTheAgentDoesNotRun(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	f.mgr.neverStart = true
	cfg := writeConfig(t, t.TempDir(), "30s")
	_, err := Install(context.Background(), Request{ConfigFlag: cfg, StartWait: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "installed svc-ctl (linux-systemd, system), but it is not running after 300ms") {
		t.Fatalf("err = %v, want installed-but-not-running", err)
	}
	var ce *ConfigError
	var ue *UsageError
	if errors.As(err, &ce) || errors.As(err, &ue) {
		t.Errorf("not running classified as a config/usage error: %v", err)
	}
}

func TestInstallScope(t *testing.T) {
	cfg := writeConfig(t, t.TempDir(), "30s")
	for _, c := range []struct {
		user, userMode bool
		want           string
	}{
		{false, true, "needs root"},
		{true, false, "without sudo"},
	} {
		f := useFakeHost(t, systemd, c.userMode)
		_, err := Install(context.Background(), Request{ConfigFlag: cfg, User: c.user})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("user=%v userMode=%v: err = %v, want a usage error saying %q", c.user, c.userMode, err, c.want)
		}
		if f.built != 0 {
			t.Error("a manager was made for a refused scope")
		}
	}
}

func TestInstallUserOnSysvIsRefused(t *testing.T) {
	useFakeHost(t, sysv, true)
	cfg := writeConfig(t, t.TempDir(), "30s")
	_, err := Install(context.Background(), Request{ConfigFlag: cfg, User: true})
	if err == nil || !strings.Contains(err.Error(), "per-user services need systemd") {
		t.Fatalf("err = %v", err)
	}
}

func TestInstallRefusesGoRunBinary(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	f.exe = filepath.Join(os.TempDir(), "go-build123", "b001", "exe", "svc-ctl") // where `go run` builds, on every OS
	cfg := writeConfig(t, t.TempDir(), "30s")
	_, err := Install(context.Background(), Request{ConfigFlag: cfg})
	if err == nil || !strings.Contains(err.Error(), "go run") {
		t.Fatalf("err = %v, want a refusal of the go run binary", err)
	}
}

func TestInstallWindowsAppliesRecovery(t *testing.T) {
	f := useFakeHost(t, scm, false)
	cfg := writeConfig(t, t.TempDir(), "30s")
	ctx := context.Background()
	res, err := Install(ctx, Request{ConfigFlag: cfg})
	if err != nil {
		t.Fatal(err)
	}
	// The settings are applied after the service exists and before it starts:
	// the agent's first run already has its recovery actions.
	if got := strings.Join(f.mgr.calls, " "); got != "install settings start" {
		t.Errorf("calls = %q, want install, settings, start", got)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings from an SCM that took every setting: %q", res.Warnings)
	}
	p, err := NewPlan(Request{ConfigFlag: cfg})
	if err != nil {
		t.Fatal(err)
	}
	w := p.Unit.Windows
	if w == nil || len(w.RestartDelays) != 3 || w.RestartDelays[0] != 5*time.Second || w.RestartDelays[1] != 30*time.Second ||
		w.RestartDelays[2] != time.Minute || w.ResetPeriod != 24*time.Hour || !w.NonCrashFailures || w.PreshutdownTimeout <= 30*time.Second {
		t.Fatalf("windows settings = %+v", w)
	}
	if len(f.scm) != 1 || f.scm[0].PreshutdownTimeout != 45*time.Second {
		t.Errorf("settings applied: %+v, want once with preshutdown 45s", f.scm)
	}
	// Installed as planned: a second install re-applies the settings (they can drift) and restarts.
	f.mgr.def, f.mgr.calls = p.Unit.CommandLine, nil
	if res, err := Install(ctx, Request{ConfigFlag: cfg}); err != nil || res.Action != "restarted" {
		t.Fatalf("second install: %+v, %v", res, err)
	}
	if got := strings.Join(f.mgr.calls, " "); got != "settings restart" {
		t.Errorf("calls = %q, want settings, restart", got)
	}
}

// An optional setting the SCM does not support (Wine 8: the failure-actions
// flag, ERROR_INVALID_LEVEL) is a warning the install carries, never an
// aborted install; a refusal of a setting is an error and nothing starts.
func TestInstallWindowsUnsupportedSettingIsAWarning(t *testing.T) {
	f := useFakeHost(t, scm, false)
	cfg := writeConfig(t, t.TempDir(), "30s")
	ctx := context.Background()
	f.scmWarn = []winsvc.Warning{{Setting: "recovery on non-crash failures (SERVICE_CONFIG_FAILURE_ACTIONS_FLAG)",
		Lacks: "the SCM restarts the agent after a crash only", Err: errors.New("Invalid level.")}}
	res, err := Install(ctx, Request{ConfigFlag: cfg})
	if err != nil {
		t.Fatalf("install aborted for an optional setting: %v", err)
	}
	if res.Action != "installed" || strings.Join(f.mgr.calls, " ") != "install settings start" || !f.mgr.up {
		t.Errorf("result %+v, calls %v, running %v: want installed and started", res, f.mgr.calls, f.mgr.up)
	}
	want := "recovery on non-crash failures (SERVICE_CONFIG_FAILURE_ACTIONS_FLAG) not set: the service manager does not support it (Invalid level.); the SCM restarts the agent after a crash only"
	if len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("warnings = %q, want [%q]", res.Warnings, want)
	}
	info, err := Status(StatusOptions{DrainTimeout: 30 * time.Second})
	if err != nil || !info.SettingsChecked || len(info.Warnings) != 1 || info.Warnings[0] != want {
		t.Errorf("status does not read the warning back: %+v, %v", info, err)
	}

	f.mgr = &fakeManager{}
	f.scmWarn, f.scmErr = nil, errors.New("set recovery actions of service \"svc-ctl\": Access is denied.")
	if _, err := Install(ctx, Request{ConfigFlag: cfg}); err == nil || !strings.Contains(err.Error(), "Access is denied") {
		t.Fatalf("install with a refused setting: err = %v, want the refusal", err)
	}
	if got := strings.Join(f.mgr.calls, " "); got != "install settings" {
		t.Errorf("calls = %q: a refused setting must not be followed by a start", got)
	}
	info, err = Status(StatusOptions{DrainTimeout: 30 * time.Second})
	if err != nil || info.SettingsChecked || !strings.Contains(info.SettingsError, "Access is denied") {
		t.Errorf("status with unreadable settings: %+v, %v", info, err)
	}
}

func TestUninstallIsIdempotent(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	f.mgr.ok, f.mgr.up, f.mgr.def = true, true, "old unit"
	ctx := context.Background()
	res, err := Uninstall(ctx, UninstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "removed" || !strings.Contains(res.Message, "stopped and removed svc-ctl (linux-systemd, system)") {
		t.Errorf("uninstall: %+v", res)
	}
	if got := strings.Join(f.mgr.calls, " "); got != "stop uninstall" {
		t.Errorf("calls = %q, want stop then uninstall", got)
	}
	res, err = Uninstall(ctx, UninstallOptions{})
	if err != nil || res.Action != "none" || !strings.HasPrefix(res.Message, "not installed; nothing to do") {
		t.Errorf("second uninstall: %+v, %v", res, err)
	}
}

func TestStatus(t *testing.T) {
	f := useFakeHost(t, systemd, true)
	info, err := Status(StatusOptions{User: true})
	if err != nil {
		t.Fatal(err)
	}
	if info.Installed || info.Running || info.Mode != ModeUserService || info.Platform != "linux-systemd" ||
		info.Path != path.Join(f.home, ".config/systemd/user/svc-ctl.service") { // a path on the target: slashes
		t.Errorf("not installed: %+v", info)
	}
	f.mgr.ok, f.mgr.up = true, true
	if info, _ = Status(StatusOptions{User: true}); !info.Installed || !info.Running {
		t.Errorf("installed and running: %+v", info)
	}
}

func TestKardianosConfig(t *testing.T) {
	s := linuxSystem()
	u, err := RenderUnit(s, systemd)
	if err != nil {
		t.Fatal(err)
	}
	c := kardianosConfig(u, s)
	if c.Name != ServiceName || c.Executable != s.Exe || strings.Join(c.Arguments, " ") != "agent --managed --config /etc/svc-ctl/svc-ctl.toml --mode service" {
		t.Errorf("config = %+v", c)
	}
	if c.Option["SystemdScript"] != u.Content || c.Option["UserService"] != false {
		t.Errorf("options = %v", c.Option)
	}
}

func TestUserScopeWhereThereIsNone(t *testing.T) {
	f := useFakeHost(t, sysv, true)
	f.mgr.ok = true // the system service is installed; --user must not see or remove it
	if _, err := Uninstall(context.Background(), UninstallOptions{User: true}); err == nil {
		t.Error("uninstall --user on SysV went ahead")
	}
	info, err := Status(StatusOptions{User: true})
	if err != nil || info.Installed || info.Error == "" {
		t.Errorf("status --user on SysV: %+v, %v", info, err)
	}
	if len(f.mgr.calls) != 0 || f.built != 0 {
		t.Errorf("touched the system service: %v", f.mgr.calls)
	}
}
