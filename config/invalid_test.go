package config

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLoadInvalid loads one testdata/config/invalid-<rule>.toml per
// validation rule and checks that exactly that one problem is reported,
// with its file, line, key and message.
func TestLoadInvalid(t *testing.T) {
	const (
		durationMsg = `use Go syntax like 30s, 10m, 1h30m, or days like 40d`
		commandMsg  = `empty command: set command = ["/path/to/program", "arg", ...] (an argv list, never run by a shell)`
	)
	tests := []struct {
		rule string
		line int
		key  string
		msg  string // "{dir}" stands for the absolute testdata/config directory
		// accounts: who reads the file: "" a root svc-ctl on an OS with
		// run-as; "per-user" a normal user's; "windows" an OS without run-as
		accounts string
	}{
		{"unknown-key-top", 2, `agnet`, `unknown key: did you mean "agent"?`, ""},
		{"unknown-key-nested", 6, `service "proxy".health.timout`, `unknown key: did you mean "timeout"?`, ""},
		{"unknown-key-list", 3, `agent.foo`, `unknown key: accepted keys here are drain_timeout, heartbeat, log_destinations, log_level, metrics_listen, on_panic, ping, ping_every, ping_file, retention, state_dir`, ""},
		{"wrong-type", 4, `service "proxy".command`, `wrong type: want a list of strings, got a string`, ""},
		{"wrong-type-duration", 6, `service "proxy".interval`, `wrong type: want a duration string like "30s", got an integer`, ""},
		{"wrong-type-table", 2, `service`, `wrong type: want a list of tables, got a table: write [[service]]`, ""},
		{"duplicate-key", 6, `service "proxy".name`, `defined twice (first at line 3): keep one`, ""},
		{"syntax", 3, ``, `invalid TOML (column 18): basic strings cannot have new lines`, ""},
		{"duration", 6, `service "proxy".health.timeout`, `invalid duration "2x": ` + durationMsg, ""},
		{"negative-duration", 6, `service "proxy".health.confirm`, `"-1s" is negative: use 0s or more`, ""},
		{"name", 3, `service[0].name`, `invalid name "Proxy Server": use 1 to 63 characters from a-z, 0-9, '.', '_' and '-', starting with a letter or digit`, ""},
		{"duplicate-name", 8, `service "proxy".name`, `duplicate name "proxy": already used at line 3; give each service its own name`, ""},
		{"duplicate-job-name", 9, `job "daily-pull".name`, `duplicate name "daily-pull": already used at line 3; give each job its own name`, ""},
		{"empty-command", 4, `service "proxy".command`, commandMsg, ""},
		{"no-health", 2, `service "proxy"`, `no health check: set at least one of health.tcp, health.http or health.exec`, ""},
		{"interval", 6, `service "proxy".interval`, `"500ms" is too short: use at least 1s`, ""},
		{"timeout-zero", 6, `service "proxy".start_timeout`, `"0s" is not allowed: use a duration greater than 0, like "8s"`, ""},
		{"health-http", 6, `service "proxy".health.http`, `invalid URL "ftp://127.0.0.1/health": use an http:// or https:// URL with a host`, ""},
		{"health-tcp", 5, `service "proxy".health.tcp`, `invalid address "localhost": use host:port like 127.0.0.1:8789`, ""},
		{"expect-status", 7, `service "proxy".health.expect_status`, `700 is not an HTTP status: use 100 to 599, or leave it out to accept any 2xx`, ""},
		{"expect-body", 7, `service "proxy".health.expect_body`, "invalid regexp \"(\": error parsing regexp: missing closing ): `(`", ""},
		{"expect-without-http", 6, `service "proxy".health.expect_status`, `only used by an http check: set health.http, or remove it`, ""},
		{"log-level", 3, `agent.log_level`, `invalid value "verbose": use debug, info, warn or error`, ""},
		{"on-panic", 3, `agent.on_panic`, `invalid value "crash": use continue or exit`, ""},
		{"metrics-listen", 3, `agent.metrics_listen`, `invalid address "9464": use host:port like 127.0.0.1:9464`, ""},
		{"depends-kind", 8, `service "proxy".depends[0].kind`, `unknown kind "smtp": use http, tcp, dns, file or cert`, ""},
		{"depends-missing-field", 7, `service "proxy".depends[0].url`, `kind "http" needs url: set url = "https://example.com/health"`, ""},
		{"depends-cert", 7, `service "proxy".depends[0].path`, `kind "cert" needs path (a PEM file) or url (an https:// endpoint): set path = "/srv/proxy/client.pem" or url = "https://example.com"`, ""},
		{"depends-unused-key", 11, `job "daily-pull".depends[0].path`, `not used by kind "dns": remove it (kind dns uses host)`, ""},
		{"job-no-timezone", 2, `job "daily-pull".timezone`, `missing timezone: set an IANA zone like "Asia/Shanghai", or "Local" for the host's zone`, ""},
		{"timezone", 5, `job "daily-pull".timezone`, `unknown time zone "Mars/Olympus": use an IANA name like "Asia/Shanghai" or "Europe/Berlin", a Windows name like "W. Europe Standard Time", or "Local"`, ""},
		{"cron", 4, `job "daily-pull".schedule`, `invalid schedule "61 9 * * *": end of range (61) above maximum (59): 61; ` + scheduleHint, ""},
		{"schedule-never-fires", 3, `job "leap".schedule`, `schedule "0 0 30 2 *": invalid schedule: never fires: no date matches (e.g. 30 February, 31 April); accepted: 5 fields "minute hour day-of-month month day-of-week" (e.g. "30 9 * * *", "*/15 8-18 * * mon-fri"), or @yearly, @monthly, @weekly, @daily, @hourly, @every <duration> (e.g. "@every 1h30m")`, ""},
		{"cron-tz", 4, `job "daily-pull".schedule`, `"CRON_TZ=UTC 30 9 * * *": put the zone in timezone, not in the schedule`, ""},
		{"job-empty-command", 2, `job "daily-pull".command`, commandMsg + `, or set external = true if another scheduler runs it`, ""},
		{"give-up-after", 8, `service "proxy".restart.give_up_after`, `-1 is negative: use 0 (never give up) or a count of failed starts`, ""},
		{"loop-restarts", 8, `service "proxy".restart.loop_restarts`, `-1 is negative: use 0 (no crash-loop limit) or a count of restarts`, ""},
		{"loop-window", 9, `service "proxy".restart.loop_window`, `a crash loop needs a window to count restarts in: set a duration such as "2m", or loop_restarts = 0 to turn the limit off`, ""},
		{"backoff", 8, `service "proxy".restart.backoff_initial`, `backoff_initial "20m" is longer than backoff_max "10m": the first wait cannot exceed the longest`, ""},
		{"retention", 3, `agent.retention`, `"30m" is too short: use at least 1h`, ""},
		{"env-name", 6, `service "proxy".env."A=B"`, `invalid variable name "A=B": it must not be empty or contain '=' or a NUL byte`, ""},
		{"notify-kind", 4, `notify "phone".kind`, `unknown kind "sms": use webhook, ntfy, healthchecks, desktop, command, otlp or smtp`, ""},
		{"notify-missing-url", 2, `notify "phone".url`, `kind "ntfy" needs url: set url = "https://ntfy.sh/TOPIC"`, ""},
		{"notify-url", 5, `notify "hook".url`, `invalid URL (not shown: it may hold a secret): use an http:// or https:// URL with a host, like https://hooks.example.com/svc-ctl`, ""},
		{"notify-ntfy-topic", 5, `notify "phone".url`, `no topic: write the topic as the path, like https://ntfy.sh/TOPIC`, ""},
		{"notify-group-alone", 6, `notify "script".group`, `a command channel with group needs user too: set user = "NAME" (group alone would run it as the agent's own user)`, ""},
		{"notify-user-on-webhook", 6, `notify "hook".user`, `not used by kind "webhook": remove it (kind webhook uses url, min_interval, secret, url_file, secret_file)`, ""},
		{"notify-unused-key", 6, `notify "phone".secret`, `not used by kind "ntfy": remove it (kind ntfy uses url, min_interval, token, url_file, token_file, priority, tags)`, ""},
		{"notify-on", 7, `notify "hook".on[1]`, `unknown event "service.up": use service.down, service.given-up, service.recovered, job.failed, job.recovered, job.skipped, job.missing or agent`, ""},
		{"notify-priority", 6, `notify "phone".priority`, `invalid value "loud": use min, low, default, high or urgent`, ""},
		{"notify-command", 5, `notify "script".command`, commandMsg, ""},
		{"notify-desktop-system", 4, `notify "screen".kind`, `kind "desktop" needs the per-user agent (svc-ctl install --user): a system agent has no desktop session to show it in; use ntfy or webhook in this config`, ""},
		{"notify-duplicate-name", 8, `notify "screen".name`, `duplicate name "screen": already used at line 3; give each notify its own name`, ""},
		{"notify-min-interval", 6, `notify "hook".min_interval`, `"-5m" is negative: use 0s or more`, ""},
		{"notify-otlp-min-interval", 6, `notify "fleet".min_interval`, `not used by kind "otlp": it sends what is due in batches instead of folding a subject's events; remove it (use ` + "`on`" + ` to choose the events)`, ""},
		{"notify-otlp-rows", 5, `notify "fleet".rows`, `invalid value "some": use notable, all or none`, ""},
		{"notify-otlp-encoding", 5, `notify "fleet".encoding`, `invalid value "grpc": use protobuf or json`, ""},
		{"notify-otlp-reserved", 7, `notify "fleet".resource_attributes."host.name"`, `"host.name" is set by svc-ctl itself (docs/fleet.md, "Attributes"): remove it`, ""},
		{"notify-otlp-cert-alone", 1, `notify "fleet".key_file`, `a client certificate needs cert_file and key_file: set key_file too, or remove the other`, ""},
		{"notify-otlp-header", 5, `notify "fleet".headers."Bad Header"`, `invalid header name "Bad Header": use a name like X-Scope-OrgID (letters, digits and -)`, ""},
		{"notify-otlp-metrics-every", 5, `notify "fleet".metrics_every`, `"1s" is too short: use at least 10s`, ""},
		{"agent-ping-every", 3, `agent.ping_every`, `no ping to send: set ping = "https://hc-ping.com/UUID" (or ping_file), or remove ping_every`, ""},
		{"agent-ping-every-short", 3, `agent.ping_every`, `"10s" is too short: use at least 1m`, ""},
		{"log-destinations", 3, `agent.log_destinations[1]`, `invalid value "syslog": use {dests}`, ""},
		{"log-destinations-empty", 2, `agent.log_destinations`, `no destination: the agent's log must go somewhere; use ["file"] (the default) and, on this OS, {dests}`, ""},
		{"ping", 6, `service "proxy".ping`, `invalid URL (not shown: it may hold a secret): use an http:// or https:// URL with a host, like https://hc-ping.com/UUID`, ""},
		{"search-path-relative", 6, `service "proxy".search_path`, `"bin" is not an absolute directory: write the full path (search_path is searched from anywhere, never relative to a directory)`, ""},
		{"search-path-writable", 7, `job "pull".search_path`, `/tmp is writable by its group or by everyone (mode 0777), who could put any program there (it can be changed by another user); run: chmod go-w /tmp: the system agent would run programs from it as the service's user; use a directory only administrators can write, or give the program's absolute path in command`, ""},
		{"tilde-path", 6, `service "proxy".dir`, `"~/srv/proxy": ~ is not expanded here: write the full path, or a path relative to the config file`, ""},
		{"duration-too-long", 6, `service "proxy".interval`, `duration "106751d" is too long: the longest accepted is 366d`, ""},
		{"size", 6, `service "proxy".log_max`, `invalid size "50": use a number with a unit, like "50MiB", "512KiB" or "2GB"`, ""},
		{"size-too-small", 7, `job "pull".log_max`, `"1KiB" is too small: use at least 4KiB`, ""},
		{"limits-cpu", 7, `service "proxy".limits.cpu`, `invalid CPU limit "90": use a percentage of one core like "90%" ("250%" is two and a half cores)`, ""},
		{"limits-memory", 7, `service "proxy".limits.memory`, `"64KiB" is too small: use at least 1MiB`, ""},
		{"limits-for-alone", 7, `service "proxy".limits.for`, `no limit to hold for: set memory = "500MiB" or cpu = "90%" too, or remove it`, ""},
		{"wrong-type-size", 6, `service "proxy".log_max`, `wrong type: want a size string like "50MiB", got an integer`, ""},
		{"env-file", 6, `service "proxy".env_file`, filepath.Join("{dir}", "invalid-env-file.env") + ` line 3: want KEY=VALUE, with KEY made of letters, digits, '_' and '.', not starting with a digit (the value is not shown)`, ""},
		{"user-per-user", 6, `service "proxy".user`, `only the system agent (run as root) can run a service or job as another user; svc-ctl runs as a normal user here: remove it, or run svc-ctl as root`, "per-user"},
		{"user-windows", 7, `job "pull".group`, `not supported on this OS yet (Windows): remove it; the service runs as the agent's account`, "windows"},
		{"user-unknown", 6, `service "proxy".user`, `unknown user "svcctl-no-such-user": create it, or name an existing user or uid`, ""},
		{"stop-signal", 6, `service "proxy".stop_signal`, `invalid value "TERM": use one of SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGWINCH, SIGKILL`, ""},
		{"kill-mode", 6, `service "proxy".kill_mode`, `invalid value "mixed": use "tree" (the stop signal to every process, the default) or "main" (to the main process only)`, ""},
		{"stop-command", 6, `service "proxy".stop_command`, `empty command: set stop_command = ["/path/to/program", "arg", ...] (an argv list, never run by a shell)`, ""},
		{"group-unknown", 8, `job "pull".group`, `unknown group "svcctl-no-such-group": create it, or name an existing group or gid`, ""},
	}
	// Load as the system agent: a desktop channel is refused there (and the
	// same file is accepted for a per-user agent, below).
	defer swapUserMode(false)()
	defer swapStopOS("linux")() // the unix stop rules (the Windows ones: validate_stop_test.go)
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.rule] = true
		t.Run(tt.rule, func(t *testing.T) {
			if tt.rule == "search-path-writable" && runtime.GOOS == "windows" {
				t.Skip("the file names /tmp and its Unix mode bits; on Windows a directory's writers are its ACL's")
			}
			fakeAccounts(t, tt.accounts == "per-user", tt.accounts != "windows")
			file := filepath.Join("..", "testdata", "config", "invalid-"+tt.rule+".toml")
			dir, _ := filepath.Abs(filepath.Dir(file))
			tt.msg = strings.ReplaceAll(tt.msg, "{dir}", dir)
			tt.msg = strings.ReplaceAll(tt.msg, "{dests}", orList(osLogDestinations))
			cfg, err := Load(file)
			if err == nil {
				t.Fatalf("Load(%s) = %+v, want an error", file, cfg)
			}
			var first *Error
			if !errors.As(err, &first) {
				t.Fatalf("Load(%s) error %v (%T) holds no *Error", file, err, err)
			}
			all := Errors(err)
			if len(all) != 1 {
				t.Fatalf("got %d problems, want exactly 1:\n%v", len(all), err)
			}
			want := Error{File: file, Line: tt.line, Key: tt.key, Msg: tt.msg}
			if *first != want {
				t.Errorf("got  %#v\nwant %#v", *first, want)
			}
		})
	}
	// Every invalid-*.toml in testdata has its row: no rule goes untested.
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "config", "invalid-*.toml"))
	for _, f := range files {
		rule := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "invalid-"), ".toml")
		if !covered[rule] {
			t.Errorf("%s has no row in TestLoadInvalid", f)
		}
	}
}

// TestAllProblemsAtOnce: a file with many problems reports each of them,
// sorted by line, so a person fixes them in one pass.
func TestAllProblemsAtOnce(t *testing.T) {
	data := `[agent]
log_levl = "info"
retention = "1m"

[[service]]
name = "Bad Name"
interval = "2x"

[[service]]
name = "ok"
command = ["/bin/ok"]
health.tcp = "nope"

[[job]]
name = "ok"
schedule = "* * *"
timezone = "Nowhere/Town"
command = ["/bin/ok"]
`
	_, err := Parse([]byte(data), "svc-ctl.toml")
	got := Errors(err)
	want := []struct {
		line int
		key  string
	}{
		{2, "agent.log_levl"},
		{3, "agent.retention"},
		{5, "service[0].command"},
		{5, "service[0]"},
		{6, "service[0].name"},
		{7, "service[0].interval"},
		{12, `service "ok".health.tcp`},
		{16, `job "ok".schedule`},
		{17, `job "ok".timezone`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for i, w := range want {
		if got[i].Line != w.line || got[i].Key != w.key || got[i].File != "svc-ctl.toml" {
			t.Errorf("problem %d = %s:%d %s, want svc-ctl.toml:%d %s", i, got[i].File, got[i].Line, got[i].Key, w.line, w.key)
		}
	}
	// Unknown keys and validation failures come together when the types
	// are right; a wrong type stops validation (values cannot be trusted)
	// but still reports every unknown key and wrong type.
	_, err = Parse([]byte("[agent]\nlog_level = 1\nfoo = 2\n[[service]]\nname = 3\n"), "x.toml")
	lines := []int{}
	for _, e := range Errors(err) {
		lines = append(lines, e.Line)
	}
	if len(lines) != 3 || lines[0] != 2 || lines[1] != 3 || lines[2] != 5 {
		t.Errorf("wrong-type file: problems on lines %v, want [2 3 5]:\n%v", lines, err)
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{"svc-ctl.toml", 14, `service "proxy".health.timeout`, `invalid duration "2x": x`},
			`svc-ctl.toml:14: service "proxy": health.timeout: invalid duration "2x": x`},
		{Error{"svc-ctl.toml", 9, `service "proxy"`, "no health check"},
			`svc-ctl.toml:9: service "proxy": no health check`},
		{Error{"a.toml", 3, `service[2].name`, "m"}, `a.toml:3: service[2]: name: m`},
		{Error{"a.toml", 3, `job "j".depends[0].kind`, "m"}, `a.toml:3: job "j": depends[0].kind: m`},
		{Error{"a.toml", 2, `agent.log_level`, "m"}, `a.toml:2: agent.log_level: m`},
		{Error{"a.toml", 2, `service`, "m"}, `a.toml:2: service: m`},
		{Error{"a.toml", 0, ``, "m"}, `a.toml: m`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestErrorsNeverEchoSecrets: values from env and URL passwords stay out of
// messages, even when the value itself is what is wrong.
func TestErrorsNeverEchoSecrets(t *testing.T) {
	data := `[[service]]
name = "proxy"
command = ["/bin/proxy"]
env = { TOKEN = "hunter2` + "\\u0000" + `" }
health.http = "ftp://admin:hunter2@127.0.0.1/?token=hunter2"
`
	_, err := Parse([]byte(data), "s.toml")
	if err == nil {
		t.Fatal("want errors for a NUL in env and an ftp:// health URL")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a secret leaked into the message:\n%v", err)
	}
	if len(Errors(err)) != 2 {
		t.Errorf("want 2 problems, got:\n%v", err)
	}
}

// TestDecoderErrors: problems only go-toml's decoder sees still come back as
// *Error with the line and, where the walk knows it, the service's name.
func TestDecoderErrors(t *testing.T) {
	tests := []struct {
		data, key string
		line      int
		msg       string
	}{
		{"[[service]]\nname = \"a\"\n[service.restart]\ngive_up_after = 99999999999999999999\n",
			`service "a".restart.give_up_after`, 4, "decimal number is too large to fit in a 64-bit signed integer"},
		{"[agent]\nlog_level = \"info\"\n[agent]\n", `agent`, 3, "table agent already exists"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.data), "d.toml")
		all := Errors(err)
		if len(all) != 1 || all[0].Key != tt.key || all[0].Line != tt.line || all[0].Msg != tt.msg {
			t.Errorf("Parse(%q):\n got %v\nwant d.toml:%d %s: %s", tt.data, err, tt.line, tt.key, tt.msg)
		}
	}
}

// swapUserMode makes Parse judge configs as a per-user (true) or system
// (false) agent's; the returned func restores the host's own answer.
func swapUserMode(user bool) func() {
	old := userMode
	userMode = func() bool { return user }
	return func() { userMode = old }
}

// TestDesktopPerUser: the desktop channel the system agent refuses is fine
// in a per-user agent's config.
func TestDesktopPerUser(t *testing.T) {
	defer swapUserMode(true)()
	cfg, err := Load(filepath.Join("..", "testdata", "config", "invalid-notify-desktop-system.toml"))
	if err != nil {
		t.Fatalf("per-user agent: %v", err)
	}
	if n := cfg.NotifyChannel("screen"); n == nil || n.Kind != NotifyDesktop || n.Timeout != 10*time.Second {
		t.Errorf("channel screen = %+v", n)
	}
}
