package probe

import (
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
)

// corpusEnv is the corpus env plus the helper switch.
func corpusEnv(mode string) map[string]string {
	env := maps.Clone(redacttest.Env)
	maps.Copy(env, redacttest.FileEnv)
	env[helperEnv] = mode
	return env
}

// TestRedactCorpusExec: an exec probe's output tail and its target are
// written with the shared rules: the corpus lines printed by the command
// and passed as its argv lose every secret and keep every harmless value.
func TestRedactCorpusExec(t *testing.T) {
	red := redact.New(redacttest.Values()...)
	var in []string
	argv := []string{os.Args[0]}
	for _, c := range redacttest.Cases {
		in = append(in, c.In)
		argv = append(argv, c.In)
	}
	r := run(Spec{Kind: KindExec, Argv: argv, Env: corpusEnv("corpus"), Timeout: 5 * time.Second, Redact: red})
	b, _ := json.Marshal(r)
	redacttest.Check(t, "exec probe", strings.Join(in, "\n"), string(b))
	if !strings.Contains(r.Detail["output"].(string), "127.0.0.1:18101") {
		t.Fatalf("output lost its evidence: %q", r.Detail["output"])
	}
}

// TestRedactKeepsHarmlessEnv: with NO_PROXY=127.0.0.1 in the service env,
// a probe target once read
// http://[redacted]:18101/ in run_trace. Harmless values are evidence.
func TestRedactKeepsHarmlessEnv(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	env := map[string]string{"NO_PROXY": "127.0.0.1", "PORT": port, "DEBUG": "true", "TOKEN": "tok-5551212"}
	target := srv.URL + "/health"
	r := run(Spec{Kind: KindHTTP, Target: target, Env: env, Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if r.Target != target {
		t.Fatalf("target = %q, want %q unchanged", r.Target, target)
	}
}

// TestRedactedTargets: each kind's Target goes through the same rules
// (URL userinfo and query values; argv flag values).
func TestRedactedTargets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: KindHTTP, Target: "https://u:p@api.example.com/v1?key=abc&x=1"}, "https://[redacted]@api.example.com/v1?key=[redacted]&x=[redacted]"},
		{Spec{Kind: KindCert, Target: "https://tok@api.example.com/#frag"}, "https://[redacted]@api.example.com/#[redacted]"},
		{Spec{Kind: KindTCP, Target: "127.0.0.1:8789", Env: map[string]string{"NO_PROXY": "127.0.0.1"}}, "127.0.0.1:8789"},
		{Spec{Kind: KindExec, Argv: []string{"/bin/check", "--auth", "X-4242", "--port", "8789"}}, "/bin/check --auth [redacted] --port 8789"},
		{Spec{Kind: KindExec, Argv: []string{"/bin/check", "--header=env-value-123"}, Env: map[string]string{"A": "env-value-123"}}, "/bin/check --header=[redacted]"},
	}
	for _, tt := range tests {
		if got := displayTarget(tt.s, tt.s.redactor()); got != tt.want {
			t.Errorf("displayTarget(%v) = %q, want %q", tt.s.Argv, got, tt.want)
		}
	}
}
