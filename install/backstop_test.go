package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
)

func TestBackstopWithoutEvidenceFails(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	cfg := writeConfig(t, t.TempDir(), "30s")
	f.run.on = func(argv []string) error {
		if strings.Contains(strings.Join(argv, " "), "start svc-ctl-backstop.service") {
			return errors.New("exit status 1: Job for svc-ctl-backstop.service failed")
		}
		return nil
	}
	_, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, Wait: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not prove itself") || !strings.Contains(err.Error(), "Job for svc-ctl-backstop.service failed") {
		t.Fatalf("err = %v, want registered-but-no-evidence with the run's failure", err)
	}
	// The registration stays: once the cause is fixed it runs.
	if _, err := os.Stat(host.path("/etc/systemd/system/svc-ctl-backstop.timer")); err != nil {
		t.Errorf("timer removed after a failed first run: %v", err)
	}
}

func TestBackstopSystemdCommands(t *testing.T) {
	f := useFakeHost(t, systemd, true)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "30s")
	evidence := filepath.Join(dir, "state", watchdogLast)
	f.run.on = func(argv []string) error {
		if argv[len(argv)-1] == "svc-ctl-backstop.service" {
			return touch(evidence)
		}
		return nil
	}
	if _, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, User: true, Every: 15 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"systemctl --user daemon-reload",
		"systemctl --user enable --now svc-ctl-backstop.timer",
		"systemctl --user start svc-ctl-backstop.service",
	}
	if got := f.run.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	timer := filepath.Join(host.root, f.home, ".config/systemd/user/svc-ctl-backstop.timer")
	if b, err := os.ReadFile(timer); err != nil || !strings.Contains(string(b), "OnUnitActiveSec=900") {
		t.Errorf("timer file: %v\n%s", err, b)
	}

	f.run.calls = nil
	if _, err := UninstallBackstop(context.Background(), BackstopOptions{User: true}); err != nil {
		t.Fatal(err)
	}
	want = []string{"systemctl --user disable --now svc-ctl-backstop.timer", "systemctl --user daemon-reload"}
	if got := f.run.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("uninstall commands: %q", got)
	}
	for _, p := range []string{timer, strings.TrimSuffix(timer, ".timer") + ".service"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", p)
		}
	}
}

func TestBackstopLaunchdAndTaskCommands(t *testing.T) {
	cases := []struct {
		target   Target
		user     bool
		register []string
	}{
		{launchd, false, []string{"launchctl bootout system/svc-ctl-backstop", "launchctl bootstrap system @plist", "launchctl kickstart system/svc-ctl-backstop"}},
		{launchd, true, []string{"launchctl bootout gui/1000/svc-ctl-backstop", "launchctl bootstrap gui/1000 @plist", "launchctl kickstart gui/1000/svc-ctl-backstop"}},
		{scm, false, []string{"schtasks.exe /Create /TN svc-ctl-backstop /XML @xml /F", "schtasks.exe /Run /TN svc-ctl-backstop"}},
	}
	for _, c := range cases {
		f := useFakeHost(t, c.target, c.user)
		dir := t.TempDir()
		cfg := writeConfig(t, dir, "30s")
		evidence := filepath.Join(dir, "state", watchdogLast)
		var xmlSeen []byte
		f.run.on = func(argv []string) error {
			switch argv[1] {
			case "kickstart", "/Run":
				return touch(evidence)
			case "/Create":
				xmlSeen, _ = os.ReadFile(argv[5]) // the temporary XML, while it exists
			}
			return nil
		}
		if _, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, User: c.user}); err != nil {
			t.Fatalf("%s user=%v: %v", c.target.Platform, c.user, err)
		}
		got := f.run.got()
		for i := range got {
			// launchd's paths are the target's: slashes, whatever OS renders them.
			got[i] = strings.Replace(got[i], path.Join(f.home, "Library/LaunchAgents/svc-ctl-backstop.plist"), "@plist", 1)
			got[i] = strings.Replace(got[i], "/Library/LaunchDaemons/svc-ctl-backstop.plist", "@plist", 1)
			if fields := strings.Fields(got[i]); len(fields) > 5 && fields[1] == "/Create" {
				got[i] = strings.Replace(got[i], fields[5], "@xml", 1)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.register, "\n") {
			t.Errorf("%s user=%v commands:\n%s\nwant:\n%s", c.target.Platform, c.user, strings.Join(got, "\n"), strings.Join(c.register, "\n"))
		}
		if c.target == scm && (len(xmlSeen) < 2 || xmlSeen[0] != 0xFF || xmlSeen[1] != 0xFE) {
			t.Errorf("task XML handed to schtasks is not UTF-16 with a BOM: % x", xmlSeen[:min(len(xmlSeen), 4)])
		}
	}
}

func TestBackstopRefusals(t *testing.T) {
	useFakeHost(t, sysv, true)
	cfg := writeConfig(t, t.TempDir(), "30s")
	if _, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, User: true}); err == nil || !strings.Contains(err.Error(), "needs systemd") {
		t.Errorf("user cron backstop: err = %v", err)
	}
	useFakeHost(t, sysv, false)
	for _, every := range []time.Duration{30 * time.Second, 7 * time.Minute} {
		_, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, Every: every})
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("--every %s: err = %v, want a usage error", every, err)
		}
	}
}

func TestBackstopNeedsServices(t *testing.T) {
	useFakeHost(t, systemd, false)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[agent]\nstate_dir = %q\n", filepath.Join(dir, "state"))), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "nothing to start") {
		t.Errorf("err = %v", err)
	}
}

func TestCronDaemonMissingIsAFailure(t *testing.T) {
	c := cronFile{linuxSystem(), 10 * time.Minute}
	testkit.Replace(t, &cronDaemonRunning, func() (bool, bool) { return false, true })
	if err := c.checkDaemon(); !errors.Is(err, errNoCronDaemon) {
		t.Errorf("no daemon: %v", err)
	}
	cronDaemonRunning = func() (bool, bool) { return false, false }
	if err := c.checkDaemon(); err != nil {
		t.Errorf("unknown: %v, want no claim", err)
	}
}

// While the agent runs, its own cycles keep updating watchdog.last.json, one
// service at a time: that is not evidence that the backstop ran.
func TestAgentCyclesAreNotBackstopEvidence(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "30s")
	evidence := filepath.Join(dir, "state", watchdogLast)
	f.run.on = func(argv []string) error {
		if argv[len(argv)-1] == "svc-ctl-backstop.service" {
			return os.WriteFile(evidence, lastJSON(time.Now(), "demo"), 0o600) // one service's cycle: the agent's, not ours
		}
		return nil
	}
	_, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, Wait: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no cycle of every service (2)") {
		t.Fatalf("err = %v, want no evidence", err)
	}
	// Cycles from before the run do not count either.
	f.run.on = func(argv []string) error {
		if argv[len(argv)-1] == "svc-ctl-backstop.service" {
			return os.WriteFile(evidence, lastJSON(time.Now().Add(-time.Hour), "demo", "demo2"), 0o600)
		}
		return nil
	}
	if _, err := InstallBackstop(context.Background(), BackstopRequest{ConfigFlag: cfg, Wait: 300 * time.Millisecond}); err == nil {
		t.Fatal("hour-old cycles were taken as this run's")
	}
}

// A Task Scheduler answer that neither names the task nor fails is no
// answer: Wine's schtasks.exe exits 0 and prints nothing for /Query of any
// name. "Registered" must not be read into it.
func TestTaskRegisteredNeedsTheTaskNamed(t *testing.T) {
	for _, c := range []struct {
		out     string
		err     error
		want    bool
		wantErr error
	}{
		{"Folder: \\\r\nTaskName   Next Run Time   Status\r\nsvc-ctl-backstop   N/A   Ready\r\n", nil, true, nil},
		{"ERROR: The system cannot find the file specified.", errors.New("exit status 1"), false, nil},
		{"", nil, false, errCannotTell},
	} {
		got, err := schedTask{}.registered(context.Background(), answer{[]byte(c.out), c.err})
		if got != c.want || !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
			t.Errorf("schtasks said %q, %v: registered = %v, %v; want %v, %v", c.out, c.err, got, err, c.want, c.wantErr)
		}
	}
}

// answer is a runner that answers every command the same.
type answer struct {
	out []byte
	err error
}

func (a answer) run(context.Context, ...string) ([]byte, error) { return a.out, a.err }
