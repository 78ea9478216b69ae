//go:build unix

package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsExposed: a config holding notification secrets
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

// TestSecretFiles: url_file, secret_file and token_file keep a channel's
// secrets out of the config: read (one line, relative to the config), never
// quoted in an error, not followed through a link; the config then holds no
// secret to warn about, while a secret file others can read is warned
// about; a privileged agent refuses one others can change.
func TestSecretFiles(t *testing.T) {
	const topic, tok, hmacKey = "https://ntfy.example.org/topic-5e6f7a8b", "tk_1a2b3c4d5e", "hmac-file-k3y"
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("topic", topic+"\n", 0o600)
	write("token", "  "+tok+"\r\n", 0o600)
	write("hmac", hmacKey, 0o600)
	write("ping", "https://hc.example.com/ping/uuid-in-file\n", 0o600)
	body := func(extra string) string {
		return `
[agent]
state_dir = "` + filepath.ToSlash(filepath.Join(dir, "state")) + `"

[[notify]]
name = "phone"
kind = "ntfy"
url_file = "topic"
token_file = "token"

[[notify]]
name = "hook"
kind = "webhook"
url = "https://hooks.example.com/svc-ctl"
secret_file = "` + filepath.Join(dir, "hmac") + `"

[[job]]
name = "pull"
schedule = "@hourly"
timezone = "UTC"
command = ["/bin/true"]
ping_file = "ping"
` + extra
	}
	path := write("svc-ctl.toml", body(""), 0o644)
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	phone, hook := cfg.NotifyChannel("phone"), cfg.NotifyChannel("hook")
	if phone.URL != topic || phone.Token != tok || hook.Secret != hmacKey ||
		phone.URLFile != filepath.Join(dir, "topic") || phone.TokenFile != filepath.Join(dir, "token") {
		t.Fatalf("read %q %q %q from %q %q", phone.URL, phone.Token, hook.Secret, phone.URLFile, phone.TokenFile)
	}
	if j := cfg.Job("pull"); j.Ping != "https://hc.example.com/ping/uuid-in-file" || j.PingFile != filepath.Join(dir, "ping") {
		t.Errorf("ping_file: read %q from %q", j.Ping, j.PingFile)
	}
	if keys := cfg.NotifySecretKeys(); len(keys) != 0 {
		t.Errorf("secrets kept in files still counted in the config: %v", keys)
	}
	if words, err := cfg.SecretsExposed(); words != "" || err != nil {
		t.Errorf("a 0644 config whose secrets are in 0600 files: %q, %v", words, err)
	}
	view, _ := json.Marshal(cfg.Redacted())
	for _, secret := range []string{topic, tok, hmacKey, "topic-5e6f7a8b", "uuid-in-file"} {
		if strings.Contains(string(view), secret) {
			t.Errorf("the redacted view shows a secret: %s", view)
		}
	}
	if !strings.Contains(string(view), `"url_file":"`+filepath.Join(dir, "topic")+`"`) || strings.Contains(string(view), `"secret":"[redacted]"`) ||
		!strings.Contains(string(view), `"ping_file":"`+filepath.Join(dir, "ping")+`"`) {
		t.Errorf("the view names the files, not the values: %s", view)
	}

	// A secret file others can read is the warning now.
	if err := os.Chmod(filepath.Join(dir, "token"), 0o644); err != nil {
		t.Fatal(err)
	}
	words, err := cfg.SecretsExposed()
	if err != nil || !strings.Contains(words, "secret file "+filepath.Join(dir, "token")+" is readable by everyone") ||
		!strings.Contains(words, "chmod 600 "+filepath.Join(dir, "token")) || strings.Contains(words, tok) {
		t.Errorf("token_file 0644: %q, %v", words, err)
	}
	// Whoever may rewrite a secret file chooses where events go: a
	// privileged agent refuses it, as an env_file.
	if err := os.Chmod(filepath.Join(dir, "hmac"), 0o646); err != nil {
		t.Fatal(err)
	}
	if err := cfg.CheckTrusted(); err == nil || !strings.Contains(err.Error(), "secret file "+filepath.Join(dir, "hmac")+" is writable by its group or by everyone") {
		t.Errorf("CheckTrusted does not judge the secret files: %v", err)
	}
	if err := os.Chmod(filepath.Join(dir, "hmac"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Refusals: both keys, a link, more than one line, empty. No value is quoted.
	os.Symlink(filepath.Join(dir, "hmac"), filepath.Join(dir, "hmac-link"))
	write("two-lines", "line-one-s3cret\nline-two-s3cret\n", 0o600)
	write("empty", "\n", 0o600)
	both := strings.Replace(body(""), "secret_file =", "secret = \"inline-s3cret\"\nsecret_file =", 1)
	write("bad.toml", both, 0o600)
	if _, err := Load(filepath.Join(dir, "bad.toml")); err == nil || !strings.Contains(err.Error(), `notify "hook": secret_file`) ||
		!strings.Contains(err.Error(), "secret and secret_file are both set") || strings.Contains(err.Error(), "inline-s3cret") {
		t.Errorf("secret and secret_file: %v", err)
	}
	for _, c := range []struct{ file, want string }{
		{"hmac-link", "is a symbolic link"},
		{"two-lines", "holds more than one line"},
		{"empty", "is empty"},
		{"absent", "no such file"},
	} {
		text := strings.Replace(body(""), filepath.Join(dir, "hmac"), filepath.Join(dir, c.file), 1)
		write("bad.toml", text, 0o600)
		_, err := Load(filepath.Join(dir, "bad.toml"))
		if err == nil || !strings.Contains(err.Error(), `notify "hook": secret_file`) || !strings.Contains(err.Error(), c.want) ||
			strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), hmacKey) {
			t.Errorf("secret_file %s: %v", c.file, err)
		}
	}

	// An unreadable one: TestSecretFileUnreadable (run as an unprivileged user).
}

// A refused url_file is one error, its own: not also "needs url", which
// would send people to put the secret back into the config.
func TestRefusedURLFileIsOneError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte("https://hc-ping.com/abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "hc.link")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte("[[notify]]\nname = \"hc\"\nkind = \"healthchecks\"\nurl_file = \"hc.link\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") || strings.Contains(err.Error(), "needs url") {
		t.Fatalf("a linked url_file: %v; want its own error only", err)
	}
}
