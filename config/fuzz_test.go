package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: no config bytes make Parse panic; every failure is made of
// *Error values that name the file and a line inside it; every success is a
// Config that passes the invariants the agent relies on.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "config", "*.toml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("[service.health]\n[[service]]\n"))
	f.Add([]byte("service = [{name = \"a\", depends = [{kind = \"tcp\"}]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "f.toml")
		if err != nil {
			checkProblems(t, data, err)
			return
		}
		checkConfig(t, cfg)
	})
}

func checkProblems(t *testing.T, data []byte, err error) {
	all := Errors(err)
	if len(all) == 0 {
		t.Fatalf("error without any *Error: %v", err)
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, e := range all {
		if e.File != "f.toml" || e.Line < 0 || e.Line > lines || e.Msg == "" {
			t.Fatalf("bad problem %#v in a %d-line file", e, lines)
		}
	}
}

func checkConfig(t *testing.T, cfg *Config) {
	if cfg.Agent.Heartbeat <= 0 || cfg.Agent.Retention < 3600e9 || !filepath.IsAbs(cfg.Agent.StateDir) {
		t.Fatalf("agent invariants broken: %+v", cfg.Agent)
	}
	for _, s := range cfg.Services {
		if !validName(s.Name) || len(s.Command) == 0 || s.Interval < 1e9 || s.Health.Timeout <= 0 ||
			(s.Health.TCP == "" && s.Health.HTTP == "" && len(s.Health.Exec) == 0) {
			t.Fatalf("service invariants broken: %+v", s)
		}
	}
	for _, j := range cfg.Jobs {
		if !validName(j.Name) || j.Location == nil || (len(j.Command) == 0 && !j.External) {
			t.Fatalf("job invariants broken: %+v", j)
		}
	}
}
