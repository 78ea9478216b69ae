package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedacted(t *testing.T) {
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
	for _, secret := range []string{"user:pw", "t0ken", "s3cret", "key=abc", "C.UTF-8"} {
		if strings.Contains(js, secret) {
			t.Errorf("%q leaked into %s", secret, js)
		}
	}
	for _, want := range []string{
		`"retention":"14d"`, `"interval":"5m"`, `"confirm":"0s"`, `"max_age":"1d12h"`,
		`"HTTPS_PROXY":"[redacted]"`, `"--token","[redacted]"`,
		`"http":"http://127.0.0.1:8789/health?key=[redacted]"`, `"give_up_after":0`,
		`"timezone":"Asia/Shanghai"`, `"catch_up":true`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("missing %s in %s", want, js)
		}
	}
}

func TestRedactURL(t *testing.T) {
	tests := map[string]string{
		"":                                  "",
		"https://example.com/health":        "https://example.com/health",
		"https://user:pw@example.com/x":     "https://user:[redacted]@example.com/x",
		"https://TOKEN@example.com/x":       "https://[redacted]@example.com/x",
		"http://h/p?a=1&b=2":                "http://h/p?a=[redacted]&b=[redacted]",
		"http://us er:p@ss@h/%zz?token=abc": "[redacted]",
		"not a url":                         "not a url",
	}
	for in, want := range tests {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"/bin/x", "--token", "abc", "--password=pw", "-api-key", "k", "--port", "80", "https://u:p@h/", "--auth"}
	want := []string{"/bin/x", "--token", "[redacted]", "--password=[redacted]", "-api-key", "[redacted]", "--port", "80", "https://u:[redacted]@h/", "--auth"}
	got := RedactArgs(in)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("RedactArgs = %q, want %q", got, want)
	}
	if in[2] != "abc" {
		t.Error("RedactArgs changed its input")
	}
}
