//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsExposed (review2 R5): a config holding notification secrets
// that others can read is named, with its keys and the chmod that fixes it,
// never with a secret; 0600 or a config without secrets says nothing.
func TestSecretsExposed(t *testing.T) {
	const hmacKey, ntfyTok, topic, uuid = "hmac-k3y-9f8e7d", "tk_0a1b2c3d4e", "topic-77aa99", "5d2f-ping-uuid"
	dir := t.TempDir()
	path := filepath.Join(dir, "svc-ctl.toml")
	text := `
[agent]
state_dir = "` + filepath.ToSlash(filepath.Join(dir, "state")) + `"

[[job]]
name = "pull"
schedule = "@hourly"
timezone = "UTC"
command = ["/bin/true"]
ping = "https://hc.example.com/ping/` + uuid + `"

[[notify]]
name = "hook"
kind = "webhook"
url = "https://hooks.example.com/svc-ctl"
secret = "` + hmacKey + `"

[[notify]]
name = "phone"
kind = "ntfy"
url = "https://ntfy.example.org/` + topic + `"
token = "` + ntfyTok + `"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`notify "hook".secret`, `notify "phone".url`, `notify "phone".token`, `job "pull".ping`}
	if got := strings.Join(cfg.NotifySecretKeys(), "|"); got != strings.Join(want, "|") {
		t.Errorf("keys %s, want %s", got, strings.Join(want, "|"))
	}
	for _, c := range []struct {
		mode os.FileMode
		who  string // "" = nothing to say
	}{{0o600, ""}, {0o400, ""}, {0o644, "everyone (mode 0644)"}, {0o640, "its group (mode 0640)"}, {0o604, "everyone (mode 0604)"}} {
		if err := os.Chmod(path, c.mode); err != nil {
			t.Fatal(err)
		}
		words, err := cfg.SecretsExposed()
		if err != nil {
			t.Fatalf("%#o: %v", c.mode, err)
		}
		if c.who == "" {
			if words != "" {
				t.Errorf("%#o: %q, want nothing", c.mode, words)
			}
			continue
		}
		for _, w := range append(want, c.who, "run: chmod 600 "+path) {
			if !strings.Contains(words, w) {
				t.Errorf("%#o: %q lacks %q", c.mode, words, w)
			}
		}
		for _, secret := range []string{hmacKey, ntfyTok, topic, uuid} {
			if strings.Contains(words, secret) {
				t.Errorf("%#o: the warning shows a secret: %q", c.mode, words)
			}
		}
	}

	// No secret in the file: a readable config is no news.
	plain := filepath.Join(dir, "plain.toml")
	if err := os.WriteFile(plain, []byte(`
[agent]
state_dir = "`+filepath.ToSlash(filepath.Join(dir, "state"))+`"

[[notify]]
name = "local"
kind = "webhook"
url = "http://127.0.0.1:9093/hook"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pc, err := Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	if words, err := pc.SecretsExposed(); words != "" || err != nil || len(pc.NotifySecretKeys()) != 0 {
		t.Errorf("a config without secrets: %q, %v, keys %v", words, err, pc.NotifySecretKeys())
	}
}
