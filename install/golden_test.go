package install

import (
	"context"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/install/*.golden from the current output")

func goldenPath(name string) string {
	return filepath.Join("..", "testdata", "install", name+".golden")
}

// checkGolden compares got with the golden file name; -update rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	p := goldenPath(name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read golden %s (run `go test ./install -run Golden -update` to create it): %v", p, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (review, then -update if intended):\n--- got ---\n%s\n--- want ---\n%s", name, p, got, want)
	}
}

// Specs as on each OS, rendered here on whatever OS runs the tests.
func linuxSystem() Spec {
	return Spec{Exe: "/usr/local/bin/svc-ctl", ConfigPath: "/etc/svc-ctl/svc-ctl.toml", StateDir: "/var/lib/svc-ctl", DrainTimeout: 30 * time.Second}
}

func linuxUser() Spec {
	return Spec{Exe: "/home/alice/bin/svc-ctl", ConfigPath: "/home/alice/.config/svc-ctl/svc-ctl.toml", StateDir: "/home/alice/.local/state/svc-ctl",
		DrainTimeout: 30 * time.Second, User: true, Home: "/home/alice", UID: 1000}
}

func darwinSystem() Spec {
	return Spec{Exe: "/usr/local/bin/svc-ctl", ConfigPath: "/Library/Application Support/svc-ctl/svc-ctl.toml",
		StateDir: "/Library/Application Support/svc-ctl", DrainTimeout: 30 * time.Second}
}

func darwinUser() Spec {
	return Spec{Exe: "/opt/homebrew/bin/svc-ctl", ConfigPath: "/Users/alice/Library/Application Support/svc-ctl/svc-ctl.toml",
		StateDir: "/Users/alice/Library/Application Support/svc-ctl", DrainTimeout: 30 * time.Second, User: true, Home: "/Users/alice", UID: 501}
}

func windowsSystem() Spec {
	return Spec{Exe: `C:\Program Files\svc-ctl\svc-ctl.exe`, ConfigPath: `C:\ProgramData\svc-ctl\svc-ctl.toml`,
		StateDir: `C:\ProgramData\svc-ctl`, DrainTimeout: 30 * time.Second}
}

func windowsUser() Spec {
	return Spec{Exe: `C:\Users\alice\AppData\Local\svc-ctl\svc-ctl.exe`, ConfigPath: `C:\Users\alice\AppData\Local\svc-ctl\svc-ctl.toml`,
		StateDir: `C:\Users\alice\AppData\Local\svc-ctl`, DrainTimeout: 30 * time.Second, User: true, UserID: `EXAMPLE\alice`}
}

var (
	systemd = Target{"linux", "linux-systemd"}
	sysv    = Target{"linux", "unix-systemv"}
	openrc  = Target{"linux", "linux-openrc"}
	launchd = Target{"darwin", "darwin-launchd"}
	scm     = Target{"windows", "windows-service"}
)

func TestGoldenUnits(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
		t    Target
		path string
	}{
		{"systemd-system.service", linuxSystem(), systemd, "/etc/systemd/system/svc-ctl.service"},
		{"systemd-user.service", linuxUser(), systemd, "/home/alice/.config/systemd/user/svc-ctl.service"},
		{"sysv-init.sh", linuxSystem(), sysv, "/etc/init.d/svc-ctl"},
		{"openrc-init.sh", linuxSystem(), openrc, "/etc/init.d/svc-ctl"},
		{"launchd-daemon.plist", darwinSystem(), launchd, "/Library/LaunchDaemons/svc-ctl.plist"},
		{"launchd-agent.plist", darwinUser(), launchd, "/Users/alice/Library/LaunchAgents/svc-ctl.plist"},
		{"windows-service.txt", windowsSystem(), scm, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := RenderUnit(c.spec, c.t)
			if err != nil {
				t.Fatal(err)
			}
			if u.Path != c.path {
				t.Errorf("path = %q, want %q", u.Path, c.path)
			}
			checkGolden(t, c.name, u.Content)
			again, _ := RenderUnit(c.spec, c.t)
			if again.Content != u.Content {
				t.Error("rendering the same spec twice gave different bytes")
			}
		})
	}
}

func TestGoldenBackstops(t *testing.T) {
	cases := []struct {
		name  string
		spec  Spec
		t     Target
		kind  string
		where string
	}{
		{"backstop-systemd-system", linuxSystem(), systemd, "systemd-timer", "/etc/systemd/system/svc-ctl-backstop.timer"},
		{"backstop-systemd-user", linuxUser(), systemd, "systemd-timer", "/home/alice/.config/systemd/user/svc-ctl-backstop.timer"},
		{"backstop-cron", linuxSystem(), sysv, "cron", "/etc/cron.d/svc-ctl-backstop"},
		{"backstop-launchd-daemon", darwinSystem(), launchd, "launchd", "/Library/LaunchDaemons/svc-ctl-backstop.plist"},
		{"backstop-launchd-agent", darwinUser(), launchd, "launchd", "/Users/alice/Library/LaunchAgents/svc-ctl-backstop.plist"},
		{"backstop-task-system", windowsSystem(), scm, "task-scheduler", `\svc-ctl-backstop`},
		{"backstop-task-user", windowsUser(), scm, "task-scheduler", `\svc-ctl-backstop`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := RenderBackstop(c.spec, c.t, 10*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if p.Kind != c.kind || p.Where != c.where {
				t.Errorf("kind, where = %s, %s; want %s, %s", p.Kind, p.Where, c.kind, c.where)
			}
			var written []string
			for _, f := range p.Files {
				checkGolden(t, c.name+"-"+filepath.Base(strings.ReplaceAll(f.Path, `\`, "/")), f.Content)
				if !f.Temp {
					written = append(written, f.Path)
				}
			}
			// Uninstall removes paths(): it must be exactly what install writes.
			if got, want := strings.Join(p.sched.paths(), " "), strings.Join(written, " "); got != want {
				t.Errorf("paths() = %q, files written = %q", got, want)
			}
		})
	}
}

// The settings that matter are asserted directly too, so that a careless
// -update cannot bless a unit that kills supervised services.
func TestSystemdUnitSettings(t *testing.T) {
	for _, s := range []Spec{linuxSystem(), linuxUser()} {
		s.DrainTimeout = 2 * time.Minute
		u, err := RenderUnit(s, systemd)
		if err != nil {
			t.Fatal(err)
		}
		wantBy := "WantedBy=multi-user.target"
		if s.User {
			wantBy = "WantedBy=default.target"
		}
		for _, want := range []string{"Restart=always\n", "RestartSec=5\n", "KillMode=process\n", "Delegate=yes\n", "TimeoutStopSec=135\n", wantBy + "\n",
			"ExecStart=" + s.Exe + " agent --managed --config " + s.ConfigPath + " --mode " + string(s.Mode()) + "\n"} {
			if !strings.Contains(u.Content, want) {
				t.Errorf("%s unit lacks %q:\n%s", s.Scope(), want, u.Content)
			}
		}
	}
}

func TestStopTimeoutExceedsDrain(t *testing.T) {
	for _, d := range []time.Duration{0, time.Second, 30 * time.Second, 10 * time.Minute} {
		s := linuxSystem()
		s.DrainTimeout = d
		if s.StopTimeout() <= d {
			t.Errorf("stop timeout %s does not exceed drain_timeout %s", s.StopTimeout(), d)
		}
	}
}

func TestSystemdBackstopSettings(t *testing.T) {
	p, err := RenderBackstop(linuxSystem(), systemd, 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	svc, timer := p.Files[0].Content, p.Files[1].Content
	for _, want := range []string{"Type=oneshot\n", "KillMode=process\n", "ExecStart=/usr/local/bin/svc-ctl start --all --scheduled --config /etc/svc-ctl/svc-ctl.toml\n"} {
		if !strings.Contains(svc, want) {
			t.Errorf("backstop service lacks %q", want)
		}
	}
	for _, want := range []string{"Persistent=true\n", "OnBootSec=900\n", "OnUnitActiveSec=900\n", "Unit=svc-ctl-backstop.service\n", "WantedBy=timers.target\n"} {
		if !strings.Contains(timer, want) {
			t.Errorf("backstop timer lacks %q", want)
		}
	}
}

// plistDict reads a flat plist dictionary into key -> raw element.
func plistDict(t *testing.T, doc string) map[string]string {
	t.Helper()
	var v struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string `xml:",chardata"`
				Inner   string `xml:",innerxml"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("plist does not parse: %v", err)
	}
	out := map[string]string{}
	items := v.Dict.Items
	for i := 0; i+1 < len(items); i += 2 {
		val := items[i+1]
		switch val.XMLName.Local {
		case "true", "false":
			out[items[i].Text] = val.XMLName.Local
		case "array":
			out[items[i].Text] = val.Inner
		default:
			out[items[i].Text] = val.Text
		}
	}
	return out
}

func TestLaunchdSettings(t *testing.T) {
	u, err := RenderUnit(darwinUser(), launchd)
	if err != nil {
		t.Fatal(err)
	}
	d := plistDict(t, u.Content)
	want := map[string]string{"Label": "svc-ctl", "RunAtLoad": "true", "KeepAlive": "true", "AbandonProcessGroup": "true", "ExitTimeOut": "45"}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %q, want %q", k, d[k], v)
		}
	}
	if !strings.Contains(d["ProgramArguments"], "<string>/Users/alice/Library/Application Support/svc-ctl/svc-ctl.toml</string>") {
		t.Errorf("ProgramArguments = %s", d["ProgramArguments"])
	}
	p, err := RenderBackstop(darwinSystem(), launchd, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if b := plistDict(t, p.Files[0].Content); b["StartInterval"] != "600" || b["Label"] != BackstopName {
		t.Errorf("backstop plist: StartInterval %q, Label %q", b["StartInterval"], b["Label"])
	}
}

func TestRenderRefusesUnsafePaths(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Spec)
		t    Target
	}{
		{"newline", func(s *Spec) { s.ConfigPath = "/etc/a\nExecStartPre=/bin/rm" }, systemd},
		{"template braces", func(s *Spec) { s.Exe = "/opt/{{Name}}/svc-ctl" }, systemd},
		{"openrc quote", func(s *Spec) { s.ConfigPath = "/etc/it's.toml" }, openrc},
		{"user sysv", func(s *Spec) { s.User = true }, sysv},
		{"user windows", func(s *Spec) { s.User = true }, scm},
		{"unknown system", func(*Spec) {}, Target{"plan9", ""}},
	}
	for _, c := range cases {
		s := linuxSystem()
		c.mod(&s)
		if _, err := RenderUnit(s, c.t); err == nil {
			t.Errorf("%s: RenderUnit accepted %+v", c.name, s)
		}
	}
	s := linuxSystem()
	s.ConfigPath = "/etc/svc ctl/svc-ctl.toml"
	if _, err := RenderBackstop(s, sysv, 10*time.Minute); err == nil || !strings.Contains(err.Error(), "cron line") {
		t.Errorf("cron backstop with a space in a path: err = %v, want a refusal naming the cron line", err)
	}
}

func TestQuotingKeepsArgumentsWhole(t *testing.T) {
	s := linuxSystem()
	s.ConfigPath = `/etc/svc ctl/100%/$HOME/"q".toml`
	u, err := RenderUnit(s, systemd)
	if err != nil {
		t.Fatal(err)
	}
	if want := `--config "/etc/svc ctl/100%%/$$HOME/\"q\".toml"`; !strings.Contains(u.Content, want) {
		t.Errorf("systemd ExecStart lacks %s:\n%s", want, u.Content)
	}
	u, err = RenderUnit(s, sysv)
	if err != nil {
		t.Fatal(err)
	}
	if want := `'/etc/svc ctl/100%/$HOME/"q".toml'`; !strings.Contains(u.Content, want) {
		t.Errorf("sysv script lacks %s", want)
	}
}

func TestCronSchedule(t *testing.T) {
	ok := map[time.Duration]string{
		time.Minute: "* * * * *", 10 * time.Minute: "*/10 * * * *", 30 * time.Minute: "*/30 * * * *",
		time.Hour: "0 */1 * * *", 6 * time.Hour: "0 */6 * * *", 24 * time.Hour: "0 0 * * *",
	}
	for d, want := range ok {
		if got, err := cronSchedule(d); err != nil || got != want {
			t.Errorf("cronSchedule(%s) = %q, %v; want %q", d, got, err, want)
		}
	}
	for _, d := range []time.Duration{7 * time.Minute, 90 * time.Minute, 5 * time.Hour, 90 * time.Second} {
		if got, err := cronSchedule(d); err == nil {
			t.Errorf("cronSchedule(%s) = %q, want an error", d, got)
		}
	}
}

// The interval status reports is read back from each rendered file.
func TestIntervalReadBack(t *testing.T) {
	f := useFakeHost(t, systemd, false)
	for _, c := range []struct {
		spec  Spec
		t     Target
		every time.Duration
	}{
		{linuxSystem(), systemd, 15 * time.Minute},
		{linuxSystem(), sysv, 10 * time.Minute},
		{linuxSystem(), sysv, 6 * time.Hour},
		{linuxSystem(), sysv, time.Minute},
		{darwinSystem(), launchd, 20 * time.Minute},
		{windowsSystem(), scm, 90 * time.Minute},
	} {
		p, err := RenderBackstop(c.spec, c.t, c.every)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFiles(p.Files); err != nil {
			t.Fatal(err)
		}
		f.run.on = func(argv []string) error { return nil }
		var got time.Duration
		if c.t == scm {
			got = parseISODuration(taskIntervalRe().FindStringSubmatch(p.Files[0].Content)[1])
		} else {
			got = p.sched.interval(context.Background(), f.run)
		}
		if got != c.every {
			t.Errorf("%s every %s: read back %s", c.t.Platform, c.every, got)
		}
	}
}
