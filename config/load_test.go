package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestLoadValidFull: every key of testdata/config/valid-full.toml arrives
// in Config with its value, relative paths resolved against the file's
// directory.
func TestLoadValidFull(t *testing.T) {
	fakeAccounts(t, false, true)
	file := filepath.Join("..", "testdata", "config", "valid-full.toml")
	cfg, err := Load(file)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	dir, _ := filepath.Abs(filepath.Dir(file))
	// A path rooted without a drive takes the config file's drive on Windows
	// (/srv/proxy -> Z:\srv\proxy), as docs/configuration.md promises;
	// elsewhere VolumeName is "" and the path stays as written.
	rooted := func(p string) string { return filepath.Join(filepath.VolumeName(dir), p) }
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	proxy := Service{
		Name:    "proxy",
		Command: []string{"/usr/local/bin/proxy", "--port", "8789", "--token", "s3cret"},
		Dir:     rooted("/srv/proxy"),
		Env: map[string]string{"HTTPS_PROXY": "http://user:pw@127.0.0.1:7890", "LANG": "C.UTF-8",
			"PROXY_TOKEN": "tok-from-file", "DB_PASSWORD": `pa ss"word`, "RAW": "$HOME stays as written", "EMPTY": ""},
		EnvFile:  filepath.Join(dir, "proxy.env"),
		EnvKeys:  []string{"HTTPS_PROXY", "LANG"},
		RunAs:    RunAs{User: "nobody", Group: "nogroup"},
		Log:      filepath.Join(dir, "logs", "proxy.log"),
		LogMax:   10 << 20,
		Interval: 5 * time.Minute, StartTimeout: 20 * time.Second, StopTimeout: 15 * time.Second, KillMode: KillTree,
		Health: Health{
			TCP: "127.0.0.1:8789", HTTP: "http://127.0.0.1:8789/health?key=abc",
			ExpectStatus: 204, ExpectBody: "^ok", Timeout: 3 * time.Second, Confirm: 0,
			Exec: []string{"/usr/local/bin/proxy-check", "--quick"},
		},
		Depends: []Depend{
			{Kind: "cert", Path: filepath.Join(dir, "certs", "client.pem"), MinValid: 72 * time.Hour, Timeout: time.Second},
			{Kind: "http", URL: "https://upstream.example.com/ping", ExpectStatus: 200, Timeout: 5 * time.Second},
			{Kind: "tcp", Address: "db.example.com:5432", Timeout: 5 * time.Second},
			{Kind: "dns", Host: "api.example.com", Timeout: 5 * time.Second},
			{Kind: "file", Path: rooted("/srv/proxy/ready"), MaxAge: 36 * time.Hour, Timeout: 5 * time.Second},
			{Kind: "cert", URL: "https://api.example.com", Timeout: 5 * time.Second},
		},
		Restart: Restart{BackoffInitial: 30 * time.Second, BackoffMax: 30 * time.Minute, GiveUpAfter: 0, RetryGivenUp: 2 * time.Hour,
			LoopRestarts: 3, LoopWindow: 5 * time.Minute},
		Limits: Limits{Memory: 500 << 20, CPU: 90, For: 2 * time.Minute},
	}
	want := &Config{
		Path: filepath.Join(dir, "valid-full.toml"),
		Agent: Agent{
			StateDir: filepath.Join(dir, "state"), LogLevel: "debug", Retention: 14 * day,
			DrainTimeout: 45 * time.Second, OnPanic: "exit", Heartbeat: 15 * time.Second,
			MetricsListen: "127.0.0.1:9464", PingEvery: 5 * time.Minute, LogDestinations: []string{"file"},
		},
		Services: []Service{proxy, defaultService("worker", filepath.Join(dir, "state"))},
		Jobs: []Job{
			{
				Name: "daily-pull", Schedule: "30 9 * * *", Timezone: "Asia/Shanghai", Location: shanghai,
				Command: []string{"/srv/bin/pull", "--since", "1d"}, Dir: filepath.Join(dir, "jobs"),
				Env: map[string]string{"API_TOKEN": "t0ken", "PULL_KEY": "k-123"}, EnvFile: filepath.Join(dir, "pull.env"),
				EnvKeys: []string{"API_TOKEN"}, RunAs: RunAs{User: "nobody"}, LogMax: 1e9, Timeout: 30 * time.Minute, CatchUp: true,
				Grace: 10 * time.Minute, External: false,
				Depends: []Depend{{Kind: "dns", Host: "api.example.com", Timeout: 5 * time.Second}},
			},
			{
				Name: "backup", Schedule: "@every 6h", Timezone: "Local", Location: time.Local,
				LogMax: 50 << 20, Timeout: time.Hour, Grace: 5 * time.Minute, External: true, Depends: []Depend{},
				Ping: "https://hc.example.com/ping/9c1e-backup",
			},
		},
		Notify: []Notify{
			{Name: "phone", Kind: "ntfy", URL: "https://ntfy.example.org/svc-ctl-s3cr3t-topic",
				On: []string{"service.down", "service.given-up", "job.missing"}, MinInterval: 10 * time.Minute,
				Token: "tk_ntfy", Priority: "default", Tags: []string{"workstation"}, Timeout: 5 * time.Second},
			{Name: "alertmanager", Kind: "webhook", URL: "http://127.0.0.1:9093/hook", Secret: "hmac-key", MinInterval: 5 * time.Minute, Timeout: 10 * time.Second},
			{Name: "fleet", Kind: "healthchecks", URL: "https://hc.example.com/ping/0a1b-host", MinInterval: 5 * time.Minute, Timeout: 10 * time.Second},
			{Name: "log", Kind: "command", Command: []string{"/usr/local/bin/log-event", "--to", "/var/log/events"}, Timeout: 10 * time.Second,
				RunAs: RunAs{User: "nobody"}},
		},
	}
	want.Services[1].Ping = "https://hc.example.com/ping/7f3a-worker"
	want.Services[1].Command = []string{"worker"}
	want.Services[1].Health.Exec = []string{"worker", "--health"}
	compareConfig(t, cfg, want)
}

// defaultService is a service with every default docs/configuration.md states.
func defaultService(name, stateDir string) Service {
	return Service{
		Name:         name,
		Log:          filepath.Join(stateDir, "services", name, "runtime.log"),
		Interval:     10 * time.Minute,
		StartTimeout: 8 * time.Second,
		StopTimeout:  10 * time.Second,
		KillMode:     KillTree,
		LogMax:       50 << 20,
		Health:       Health{Timeout: 2 * time.Second, Confirm: time.Second},
		Depends:      []Depend{},
		Restart: Restart{BackoffInitial: 10 * time.Second, BackoffMax: 10 * time.Minute,
			GiveUpAfter: 5, RetryGivenUp: time.Hour, LoopRestarts: 5, LoopWindow: 2 * time.Minute},
	}
}

func compareConfig(t *testing.T, got, want *Config) {
	t.Helper()
	if !reflect.DeepEqual(got.Agent, want.Agent) {
		t.Errorf("agent:\n got %+v\nwant %+v", got.Agent, want.Agent)
	}
	if got.Path != want.Path {
		t.Errorf("path = %q, want %q", got.Path, want.Path)
	}
	if len(got.Services) != len(want.Services) || len(got.Jobs) != len(want.Jobs) {
		t.Fatalf("got %d services, %d jobs; want %d, %d", len(got.Services), len(got.Jobs), len(want.Services), len(want.Jobs))
	}
	for i := range want.Services {
		if !reflect.DeepEqual(got.Services[i], want.Services[i]) {
			t.Errorf("service %d:\n got %+v\nwant %+v", i, got.Services[i], want.Services[i])
		}
	}
	if !reflect.DeepEqual(got.Notify, want.Notify) {
		t.Errorf("notify:\n got %+v\nwant %+v", got.Notify, want.Notify)
	}
	for i := range want.Jobs {
		g, w := got.Jobs[i], want.Jobs[i]
		if g.Location.String() != w.Location.String() {
			t.Errorf("job %d location = %v, want %v", i, g.Location, w.Location)
		}
		g.Location, w.Location = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("job %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

// TestDefaults: a minimal file gets every default docs/configuration.md states.
func TestDefaults(t *testing.T) {
	data := []byte(`[[service]]
name = "proxy"
command = ["/bin/proxy"]
health.tcp = "127.0.0.1:8789"

[[job]]
name = "pull"
schedule = "@daily"
timezone = "UTC"
command = ["/bin/pull"]
`)
	cfg, err := Parse(data, "")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	state := DefaultStateDir(UserMode())
	svc := defaultService("proxy", state)
	svc.Command = []string{"/bin/proxy"}
	svc.Health.TCP = "127.0.0.1:8789"
	want := &Config{
		Agent: Agent{StateDir: state, LogLevel: "info", Retention: 40 * day, DrainTimeout: 30 * time.Second,
			OnPanic: "continue", Heartbeat: 30 * time.Second, PingEvery: 5 * time.Minute, LogDestinations: []string{"file"}},
		Services: []Service{svc},
		Jobs: []Job{{Name: "pull", Schedule: "@daily", Timezone: "UTC", Location: time.UTC,
			Command: []string{"/bin/pull"}, LogMax: 50 << 20, Timeout: time.Hour, Grace: 5 * time.Minute, Depends: []Depend{}}},
		Notify: []Notify{},
	}
	compareConfig(t, cfg, want)

	empty, err := Parse(nil, "")
	if err != nil || empty.Agent.Retention != 40*day || len(empty.Services) != 0 {
		t.Errorf("Parse(empty) = %+v, %v; want the agent defaults and nothing else", empty, err)
	}
}

// TestRelativePaths: relative paths follow the config file, not the working
// directory; with no file name they follow the working directory.
func TestRelativePaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "conf", "svc-ctl.toml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	data := []byte(`[agent]
state_dir = "../state"
[[service]]
name = "p"
command = ["./bin/p"]
dir = "work"
health.exec = ["true"]
[[service.depends]]
kind = "file"
path = "ready"
`)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Services[0]
	checks := map[string][2]string{
		"state_dir": {cfg.Agent.StateDir, filepath.Join(dir, "state")},
		"dir":       {s.Dir, filepath.Join(dir, "conf", "work")},
		"log":       {s.Log, filepath.Join(dir, "state", "services", "p", "runtime.log")},
		"depends":   {s.Depends[0].Path, filepath.Join(dir, "conf", "ready")},
		"command":   {s.Command[0], "./bin/p"}, // argv is never rewritten
		"path":      {cfg.Path, file},
	}
	for k, v := range checks {
		if v[0] != v[1] {
			t.Errorf("%s = %q, want %q", k, v[0], v[1])
		}
	}
	wd, _ := os.Getwd()
	mem, err := Parse(data, "")
	if err != nil {
		t.Fatal(err)
	}
	if mem.Path != "" || mem.Services[0].Dir != filepath.Join(wd, "work") {
		t.Errorf("Parse(data, \"\"): path %q, dir %q; want \"\" and %q", mem.Path, mem.Services[0].Dir, filepath.Join(wd, "work"))
	}
}

func TestLoadMissingFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nope.toml")
	_, err := Load(file)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(missing) = %v, want fs.ErrNotExist in the chain", err)
	}
}

// TestAcceptedValues: values at the edges of the rules are accepted.
func TestAcceptedValues(t *testing.T) {
	data := []byte(`[agent]
retention = "1h"
metrics_listen = ":0"
drain_timeout = "0s"
[[service]]
name = "a.b_c-9"
command = ["/bin/x"]
interval = "1s"
health.http = "https://[::1]:8443/health"
health.expect_status = 599
[[service]]
name = "a.b_c-9"
command = ["/bin/x"]
health.tcp = "[::1]:1"
health.confirm = "0s"
[service.restart]
backoff_initial = "10m"
backoff_max = "10m"
retry_given_up = "0s"
[[job]]
name = "a.b_c-9"
schedule = "CRON_TZ" # not a prefix: a bad schedule
timezone = "Local"
external = true
`)
	_, err := Parse(data, "edge.toml")
	all := Errors(err)
	// Only the duplicate service name and the schedule are wrong; a job may
	// share a service's name.
	if len(all) != 2 || all[0].Key != `service "a.b_c-9".name` || all[1].Key != `job "a.b_c-9".schedule` {
		t.Fatalf("want exactly the duplicate name and the schedule, got:\n%v", err)
	}
}

// TestExampleConfig: the example people copy loads as it is.
func TestExampleConfig(t *testing.T) {
	cfg, err := Load(filepath.Join("..", "contrib", "svc-ctl.example.toml"))
	if err != nil {
		t.Fatalf("contrib/svc-ctl.example.toml: %v", err)
	}
	p, j := cfg.Service("proxy"), cfg.Job("daily-pull")
	if p == nil || j == nil || p.Depends[0].Kind != "cert" || p.Health.HTTP == "" || j.Location.String() != "Asia/Shanghai" {
		t.Errorf("example config lost its proxy, cert depend or Shanghai job: %+v", cfg)
	}
}

// TestWindowsZoneNames: a zone named the Windows way (tzutil /g) is the IANA
// zone CLDR maps it to, on every host; the name stays as written.
func TestWindowsZoneNames(t *testing.T) {
	for tz, want := range map[string]string{
		"W. Europe Standard Time": "Europe/Berlin",
		"China Standard Time":     "Asia/Shanghai",
		"Tokyo Standard Time":     "Asia/Tokyo",
		"Europe/Berlin":           "Europe/Berlin", // an IANA name is never looked up as a Windows one
		"UTC":                     "UTC",
	} {
		data := []byte("[[job]]\nname = \"j\"\nschedule = \"30 9 * * *\"\ncommand = [\"/bin/j\"]\ntimezone = \"" + tz + "\"\n")
		cfg, err := Parse(data, "")
		if err != nil {
			t.Errorf("timezone %q: %v", tz, err)
			continue
		}
		if j := cfg.Jobs[0]; j.Location.String() != want || j.Timezone != tz {
			t.Errorf("timezone %q: location %v, Timezone %q; want %s, kept as written", tz, j.Location, j.Timezone, want)
		}
	}
	if len(windowsZones) < 100 {
		t.Errorf("only %d Windows zone names: run go generate ./config", len(windowsZones))
	}
	for win, iana := range windowsZones {
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("%q maps to %q, which the built-in zone data lacks: %v", win, iana, err)
		}
	}
}
