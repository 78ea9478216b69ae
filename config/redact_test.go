package config

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"

	"svcctl/internal/redact/redacttest"
)

func TestRedacted(t *testing.T) {
	fakeAccounts(t, false, true)
	cfg, err := Load(filepath.Join("..", "testdata", "config", "valid-full.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	js := string(out)
	// Secrets of valid-full.toml: an env password, an env token, a flag
	// value, a query value.
	for _, secret := range []string{"user:pw", "t0ken", "s3cret", "key=abc", "C.UTF-8",
		"svc-ctl-s3cr3t-topic", "tk_ntfy", "hmac-key", "7f3a-worker", "9c1e-backup", "0a1b-host",
		"tok-from-file", "k-123", "word"} {
		if strings.Contains(js, secret) {
			t.Errorf("%q leaked into %s", secret, js)
		}
	}
	for _, want := range []string{
		`"retention":"14d"`, `"interval":"5m"`, `"confirm":"0s"`, `"max_age":"1d12h"`,
		`"HTTPS_PROXY":"[redacted]"`, `"--token","[redacted]"`,
		`"http":"http://127.0.0.1:8789/health?key=[redacted]"`, `"give_up_after":0`,
		`"timezone":"Asia/Shanghai"`, `"catch_up":true`,
		`"url":"https://ntfy.example.org/[redacted]"`, `"token":"[redacted]"`, `"secret":"[redacted]"`,
		`"ping":"https://hc.example.com/[redacted]"`, `"min_interval":"10m"`,
		`"on":["service.down","service.given-up","service.recovered","job.failed","job.recovered","job.skipped","job.missing","agent"]`,
		`"PROXY_TOKEN":"[redacted]"`, `"log_max":"10MiB"`,
		`"log_max":"50MiB"`, `"user":"nobody"`, `"group":"nogroup"`, `"env_file":"`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("missing %s in %s", want, js)
		}
	}
}

// TestRedactedCorpus: config check writes the shared corpus (as argv of a
// service, a job and an exec health check, and in URLs) without a secret
// and without losing a harmless value.
func TestRedactedCorpus(t *testing.T) {
	env := map[string]string{}
	maps.Copy(env, redacttest.Env)
	maps.Copy(env, redacttest.FileEnv)
	var lines []string
	for _, c := range redacttest.Cases {
		lines = append(lines, c.In)
	}
	argv := append([]string{"/bin/x"}, lines...)
	cfg := &Config{
		Services: []Service{{Name: "web", Command: argv, Env: env,
			Health:  Health{HTTP: "https://proxyuser:pr0xy-pw@127.0.0.1:18101/health?t=qv-8812", Exec: argv},
			Depends: []Depend{{Kind: "http", URL: "https://127.0.0.1:18101/?code=qv-8812#frag-tok-9"}}}},
		Jobs: []Job{{Name: "pull", Command: argv, Env: env}},
	}
	b, err := json.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	redacttest.Check(t, "config check", strings.Join(lines, "\n")+" http://127.0.0.1:18101/health", string(b))
	for name := range env {
		if !strings.Contains(string(b), `"`+name+`":"[redacted]"`) {
			t.Errorf("env name %s not listed (with its value redacted) in %s", name, b)
		}
	}
}

// TestRedactedTOMLUsesTheFileKeys: config check's text form is TOML in the
// config's own keys ([agent] state_dir, [[service]], [service.health] tcp),
// not Go field names: the strict decoder of the file's schema reads it back
// without an unknown key, and a full Parse of it gives the same resolved
// values (secrets aside).
func TestRedactedTOMLUsesTheFileKeys(t *testing.T) {
	fakeAccounts(t, false, true)
	cfg, err := Load(filepath.Join("..", "testdata", "config", "valid-full.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := toml.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"[agent]\n", "state_dir = ", "[[service]]\n", "[service.health]\n", "start_timeout = ", "[[job]]\n", "[[notify]]\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("config check text lacks %q:\n%s", want, text)
		}
	}
	for _, goName := range []string{"StateDir", "[[Services]]", "StartTimeout", "Path = "} {
		if strings.Contains(text, goName) {
			t.Errorf("config check text has the Go name %q:\n%s", goName, text)
		}
	}
	var raw rawFile
	if err := toml.NewDecoder(strings.NewReader(text)).DisallowUnknownFields().Decode(&raw); err != nil {
		t.Fatalf("config check text is not in the file's keys: %v\n%s", err, text)
	}
	if len(raw.Service) != len(cfg.Services) || len(raw.Job) != len(cfg.Jobs) || len(raw.Notify) != len(cfg.Notify) {
		t.Errorf("read back %d services, %d jobs, %d channels; want %d, %d, %d",
			len(raw.Service), len(raw.Job), len(raw.Notify), len(cfg.Services), len(cfg.Jobs), len(cfg.Notify))
	}
	if raw.Agent.Retention == nil || *raw.Agent.Retention != "14d" {
		t.Errorf("agent.retention read back as %v, want 14d", raw.Agent.Retention)
	}
}
