package config

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"

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
		`"on":["service.down","service.given-up","service.recovered","job.failed","job.skipped","job.missing","agent"]`,
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
