package redact_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
)

// TestCorpus runs every line of the shared corpus through String, Args and
// Value: the writers' own tests run the same lines through theirs.
func TestCorpus(t *testing.T) {
	r := redact.New(redacttest.Values()...)
	for _, c := range redacttest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			redacttest.Check(t, "String", c.In, r.String(c.In))
			redacttest.Check(t, "Args", c.In, strings.Join(r.Args([]string{"/bin/x", c.In}), " "))
			b, err := json.Marshal(r.Value(map[string]any{"line": c.In, "nested": []any{c.In}}))
			if err != nil {
				t.Fatal(err)
			}
			redacttest.Check(t, "Value", c.In, string(b))
		})
	}
}

func TestString(t *testing.T) {
	r := redact.New("s3cret-value", "127.0.0.1", "8789", "on", "localhost,127.0.0.1")
	tests := []struct{ in, want string }{
		// env values as whole tokens only
		{"pw=s3cret-value;", "pw=[redacted];"},
		{"xs3cret-value", "xs3cret-value"},
		{"s3cret-values", "s3cret-values"},
		{"s3cret-value s3cret-value", "[redacted] [redacted]"},
		// harmless env values are never scrubbed: evidence stays readable
		{"GET http://127.0.0.1:8789/ failed", "GET http://127.0.0.1:8789/ failed"},
		{"mode on", "mode on"},
		// URLs
		{"see https://u:p@h.example/x?a=1&b#f end", "see https://[redacted]@h.example/x?a=[redacted]&[redacted]#[redacted] end"},
		{"https://h.example/ok", "https://h.example/ok"},
		// flags
		{"run --token abc123 --port 80", "run --token [redacted] --port 80"},
		{"run --client-secret=abc123", "run --client-secret=[redacted]"},
		{"the-secret-service is down", "the-secret-service is down"},
		// keys
		{`{"password":"hunter22"}`, `{"password":"[redacted]"}`},
		{"X-Auth-Token: zzzz9", "X-Auth-Token: [redacted]"},
		{"Authorization: Basic dXNlcjpwdw==", "Authorization: Basic [redacted]"},
		{"author=Jane authority: CA1", "author=Jane authority: CA1"},
		{"private_key = /etc/k.pem", "private_key = [redacted]"},
		{"exit status 1", "exit status 1"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	var nilR *redact.Redactor
	if got := nilR.String("--token x1234"); got != "--token [redacted]" {
		t.Errorf("nil Redactor: got %q", got)
	}
}

func TestArgs(t *testing.T) {
	r := redact.New("env-value-123", "1")
	in := []string{"/bin/check", "--password", "pw1", "--api-key=k2", "TOKEN=t3", "http://u:p@h/?q=1",
		"--header=env-value-123", "-v", "1", "--auth", "--port", "8789", "https://h/x=1"}
	want := []string{"/bin/check", "--password", "[redacted]", "--api-key=[redacted]", "TOKEN=[redacted]",
		"http://[redacted]@h/?q=[redacted]", "--header=[redacted]", "-v", "1", "--auth", "[redacted]", "8789", "https://h/x=1"}
	got := r.Args(in)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Args =\n%q\nwant\n%q", got, want)
	}
	if in[2] != "pw1" {
		t.Error("Args changed its input")
	}
}

// TestArgsUserPass: curl's -u/--user and -U/--proxy-user carry
// "user:password" as the next argument or after "="; the password goes, the
// user and a uid:gid stay.
func TestArgsUserPass(t *testing.T) {
	r := redact.New()
	in := []string{"/usr/bin/curl", "-sf", "--user", "curluser:curlpw-5150", "-U", "px:ppw-77", "--proxy-user=a:b-pw-9",
		"-u", "root", "--user", "1000:1000", "-u=me:[redacted]", "http://127.0.0.1:8789/"}
	want := []string{"/usr/bin/curl", "-sf", "--user", "curluser:[redacted]", "-U", "px:[redacted]", "--proxy-user=a:[redacted]",
		"-u", "root", "--user", "1000:1000", "-u=me:[redacted]", "http://127.0.0.1:8789/"}
	if got := r.Args(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("Args =\n%q\nwant\n%q", got, want)
	}
	line := "exec /usr/bin/curl -sf --user curluser:curlpw-5150 http://127.0.0.1:8789/: exit status 7"
	if got, want := r.String(line), "exec /usr/bin/curl -sf --user curluser:[redacted] http://127.0.0.1:8789/: exit status 7"; got != want {
		t.Errorf("String =\n%s\nwant\n%s", got, want)
	}
}

func TestIsSecretKey(t *testing.T) {
	secret := []string{"password", "DB_PASSWORD", "passwd", "pass", "PWD", "client_secret", "API_TOKEN", "authToken",
		"key", "api_key", "apikey", "ACCESS_KEY", "private_key", "privateKey", "cookie", "Set-Cookie", "auth",
		"Authorization", "X-Auth-Token", "oauth", "credentials", "DATABASE_DSN", "dsn", "--token", "--auth", "passphrase"}
	plain := []string{"port", "name", "author", "authority", "keyboard", "keys", "path", "status", "exit_code",
		"monkeys", "output", "detail", "target", "kind", "pid", "passenger", "HTTPS_PROXY", "NO_PROXY"}
	for _, k := range secret {
		if !redact.IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = false, want true", k)
		}
	}
	for _, k := range plain {
		if redact.IsSecretKey(k) {
			t.Errorf("IsSecretKey(%q) = true, want false", k)
		}
	}
}

func TestHarmless(t *testing.T) {
	harmless := []string{"", "1", "on", "dev", "8789", "-1", "0.5", "127.0.0.1", "::1", "fe80::1%eth0",
		"127.0.0.1:8789", "[::1]:8789", "10.0.0.0/8", "localhost", "LOCALHOST:8080", "true", "False",
		"127.0.0.1,localhost", "localhost, ::1", "yes"}
	secret := []string{"hunter2", "0x1234", "1e10", "infinity", "NaN1", "localhost.evil", "127.0.0.1.x",
		"true-ish", "127.0.0.1,s3cret", "1.2.3"}
	for _, v := range harmless {
		if !redact.Harmless(v) {
			t.Errorf("Harmless(%q) = false, want true", v)
		}
	}
	for _, v := range secret {
		if redact.Harmless(v) {
			t.Errorf("Harmless(%q) = true, want false", v)
		}
	}
}

func TestURL(t *testing.T) {
	tests := map[string]string{
		"":                              "",
		"http://127.0.0.1:8789/health":  "http://127.0.0.1:8789/health",
		"https://user:pw@example.com/x": "https://[redacted]@example.com/x",
		"https://TOKEN@example.com/x":   "https://[redacted]@example.com/x",
		"http://h/p?a=1&b=2":            "http://h/p?a=[redacted]&b=[redacted]",
		"https://h/?bare-key":           "https://h/?[redacted]",
		"https://h/#access_token=x":     "https://h/#[redacted]",
		"http://us er:p@ss@h/%zz?t=abc": "[redacted]",
		"mailto:someone@example.com":    "mailto:[redacted]",
		"not a url":                     "not a url",
		"http://h/a%20b?x=1":            "http://h/a%20b?x=[redacted]",
	}
	for in, want := range tests {
		if got := redact.URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValue(t *testing.T) {
	r := redact.New("s3cret-value")
	in := map[string]any{
		"password": "x", "token_count": 3, "nested": map[string]any{"api_key": []string{"a"}, "ok": "s3cret-value here"},
		"list": []any{"https://u:p@h/", 8789}, "exit_code": 1,
	}
	b, _ := json.Marshal(r.Value(in))
	want := `{"exit_code":1,"list":["https://[redacted]@h/",8789],"nested":{"api_key":null,"ok":"[redacted] here"},"password":"[redacted]","token_count":null}`
	if string(b) != want {
		t.Errorf("Value =\n%s\nwant\n%s", b, want)
	}
	type detail struct {
		Token  int    `json:"token"`
		Output string `json:"output"`
	}
	got, ok := redact.Same(r, detail{Token: 5, Output: "s3cret-value"})
	if !ok || got != (detail{Output: "[redacted]"}) {
		t.Errorf("Same = %+v, %v", got, ok)
	}
	if v := r.Value(func() {}); v != redact.Placeholder {
		t.Errorf("Value(func) = %v, want the placeholder", v)
	}
}

func TestEnvAndNames(t *testing.T) {
	env := map[string]string{"B": "2", "A": "secret"}
	if got := redact.Env(env); !reflect.DeepEqual(got, map[string]string{"A": "[redacted]", "B": "[redacted]"}) {
		t.Errorf("Env = %v", got)
	}
	if got := redact.Names(env); !reflect.DeepEqual(got, []string{"A", "B"}) {
		t.Errorf("Names = %v", got)
	}
}

func TestFields(t *testing.T) {
	r := redact.New("s3cret-value")
	m := map[string]any{"status": 302, "redirect_to": "https://h/?k=v", "output": "x s3cret-value",
		"token": 7, "lines": []string{"--token abc1"}, "nested": map[string]any{"ok": true}}
	r.Fields(m)
	want := map[string]any{"status": 302, "redirect_to": "https://h/?k=[redacted]", "output": "x [redacted]",
		"token": "[redacted]", "lines": []string{"--token [redacted]"}, "nested": map[string]any{"ok": true}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("Fields =\n%v\nwant\n%v", m, want)
	}
}

func TestSecretURL(t *testing.T) {
	tests := map[string]string{
		"":                             "",
		"https://ntfy.sh/my-topic":     "https://ntfy.sh/[redacted]",
		"https://hc-ping.com/uuid?x=1": "https://hc-ping.com/[redacted]",
		"https://u:p@h.example.com":    "https://h.example.com/[redacted]",
		"http://127.0.0.1:9093":        "http://127.0.0.1:9093",
		"no-host/topic":                "[redacted]",
		"mailto:someone@example.com":   "[redacted]",
	}
	for in, want := range tests {
		if got := redact.SecretURL(in); got != want {
			t.Errorf("SecretURL(%q) = %q, want %q", in, got, want)
		}
	}
}
