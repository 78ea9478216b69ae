package probe

import (
	"reflect"
	"testing"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"http://127.0.0.1:8789/health":               "http://127.0.0.1:8789/health",
		"https://u:p@api.example.com/v1?key=abc&x=1": "https://[redacted]@api.example.com/v1?key=[redacted]&x=[redacted]",
		"https://api.example.com/?bare-api-key":      "https://api.example.com/?[redacted]",
		"https://tok@api.example.com/#frag":          "https://[redacted]@api.example.com/",
		"http://a b/%zz":                             "[unparsable URL]",
		"mailto:someone@example.com":                 "mailto:[redacted]",
	}
	for in, want := range cases {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactArgv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"API": "env-value-123", "ON": "1"}
	in := []string{"/bin/check", "--password", "pw1", "--api-key=k2", "TOKEN=t3", "http://u:p@h/?q=1", "--header=env-value-123", "-v", "1"}
	want := []string{"/bin/check", "--password", "[redacted]", "--api-key=[redacted]", "TOKEN=[redacted]", "http://[redacted]@h/?q=[redacted]", "--header=[redacted]", "-v", "1"}
	if got := redactArgv(in, env); !reflect.DeepEqual(got, want) {
		t.Fatalf("redactArgv =\n%q\nwant\n%q", got, want)
	}
}

func TestScrubEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"A": "secret", "B": "secret-longer", "C": "on"}
	got := scrubEnv("a=secret b=secret-longer c=on", env)
	if want := "a=[redacted] b=[redacted] c=on"; got != want {
		t.Fatalf("scrubEnv = %q, want %q", got, want)
	}
}
