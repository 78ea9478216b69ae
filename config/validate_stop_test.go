package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const stopService = `
[[service]]
name = "db"
command = ["/usr/bin/db"]
health.exec = ["/usr/bin/db-ready"]
stop_signal = "SIGINT"
kill_mode = "main"
stop_command = ["/usr/bin/db-ctl", "stop", "-m", "fast"]
pid_file = "run/db.pid"
`

// The stop keys on unix: read as written, pid_file resolved against the
// config's directory.
func TestStopKeys(t *testing.T) {
	defer swapStopOS("linux")()
	dir := t.TempDir()
	file := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(file, []byte("[agent]\nstate_dir = \"state\"\n"+stopService), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Services[0]
	if s.StopSignal != "SIGINT" || s.KillMode != KillMain || !slices.Equal(s.StopCommand, []string{"/usr/bin/db-ctl", "stop", "-m", "fast"}) ||
		s.PidFile != filepath.Join(dir, "run", "db.pid") {
		t.Fatalf("service = %+v", s)
	}
}

// On Windows the one stop signal is SIGBREAK; kill_mode main and pid_file
// are refused (the job object owns and stops the whole tree), each saying
// what to do.
func TestStopKeysWindows(t *testing.T) {
	defer swapStopOS("windows")()
	dir := t.TempDir()
	file := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(file, []byte("[agent]\nstate_dir = \"state\"\n"+stopService), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(file)
	var msgs []string
	for _, e := range Errors(err) {
		msgs = append(msgs, e.Key+": "+e.Msg)
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		`service "db".stop_signal: "SIGINT" is not used on Windows: the only stop signal there is "SIGBREAK"`,
		`service "db".kill_mode: "main" is not used on Windows: the job object is stopped as a whole; remove kill_mode`,
		`service "db".pid_file: not used on Windows: the job object owns every process of the instance; remove pid_file`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors:\n%s\nwant a line with %s", got, want)
		}
	}
	ok := strings.Replace(strings.Replace(strings.Replace(stopService, `"SIGINT"`, `"SIGBREAK"`, 1), `kill_mode = "main"`, "", 1), `pid_file = "run/db.pid"`, "", 1)
	if err := os.WriteFile(file, []byte("[agent]\nstate_dir = \"state\"\n"+ok), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(file); err != nil || cfg.Services[0].StopSignal != "SIGBREAK" {
		t.Fatalf("SIGBREAK on Windows: %v", err)
	}
}

func swapStopOS(goos string) func() {
	old := stopOS
	stopOS = goos
	return func() { stopOS = old }
}
