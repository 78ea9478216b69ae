// Package redacttest is the one corpus every writer's redaction test runs:
// the same secrets and the same harmless values, so that "the agent log
// hides it but the snapshot does not" cannot happen unnoticed. It is only
// imported by tests.
package redacttest

import (
	"strings"
	"testing"
)

// Env is the env of the corpus's service or job: two secrets, a proxy URL
// with a password, and harmless values that must never be scrubbed from
// evidence (NO_PROXY=127.0.0.1 once turned probe targets into
// http://[redacted]:PORT).
var Env = map[string]string{
	"API_TOKEN":   "tok_9f8e7d6c5b4a",
	"DB_PASS":     "hunter2-horse",
	"HTTPS_PROXY": "http://proxyuser:pr0xy-pw@127.0.0.1:7890",
	"NO_PROXY":    "127.0.0.1,localhost,::1",
	"PORT":        "18101",
	"VERBOSE":     "true",
	"MODE":        "dev",
}

// FileEnv is what the corpus's env_file holds.
var FileEnv = map[string]string{
	"SMTP_PASSWORD": "mail-Pw-31337",
	"LISTEN":        "127.0.0.1:18102",
}

// Values lists every env and env_file value, for redact.New.
func Values() []string {
	var vs []string
	for _, m := range []map[string]string{Env, FileEnv} {
		for _, v := range m {
			vs = append(vs, v)
		}
	}
	return vs
}

// Secrets must not appear in anything a writer writes.
var Secrets = []string{
	"tok_9f8e7d6c5b4a", "hunter2-horse", "pr0xy-pw", "proxyuser", "mail-Pw-31337",
	"sk-live-4242abcd", "Zm9vYmFyYmF6", "opensesame42", "eyJhbGciOi.abc.def",
	"sess-abcdef123456", "dbpw-77", "qv-8812", "frag-tok-9", "curlpw-5150", "proxy-pw-77",
}

// Harmless must survive every writer unchanged: evidence.
var Harmless = []string{
	"127.0.0.1:18101", "http://127.0.0.1:18101/health", "18101", "localhost", "true",
	"127.0.0.1:7890", "10.1.2.3:5432", "--port 8789", "dev", "curluser:", "-u 1000:1000",
}

// Case is one line in one of the shapes a secret takes.
type Case struct {
	Name string
	In   string
}

// Cases carries every secret in Secrets and every value in Harmless at
// least once. Writers put these lines in what they write (a log line, an
// output tail, an argv, a URL) and check the result with Check.
var Cases = []Case{
	{"env value as a token", "login failed: password hunter2-horse rejected for dev"},
	{"env value in a query", "GET https://api.example.com/v1?token=tok_9f8e7d6c5b4a&page=2"},
	{"url userinfo", "proxyconnect http://proxyuser:pr0xy-pw@127.0.0.1:7890 refused"},
	{"env_file value", "smtp: auth mail-Pw-31337 refused"},
	{"flag then value", "/usr/bin/tool --auth sk-live-4242abcd --port 8789"},
	{"flag=value", "/usr/bin/tool --password=Zm9vYmFyYmF6"},
	{"key=value", "config: db_password=opensesame42 loaded"},
	{"http header", "Authorization: Bearer eyJhbGciOi.abc.def"},
	{"cookie header", "Cookie: session=sess-abcdef123456"},
	{"dsn", `DATABASE_DSN="postgres://app:dbpw-77@db.internal:5432/app"`},
	{"dsn url in a message", "dial postgres://app:dbpw-77@10.1.2.3:5432/app: connection refused"},
	{"query and fragment", "callback https://example.com/cb?code=qv-8812#frag-tok-9"},
	{"user:password after a user flag", "/usr/bin/curl -sf --user curluser:curlpw-5150 -U px:proxy-pw-77 http://127.0.0.1:18101/health"},
	{"uid:gid after -u", "docker run -u 1000:1000 --port 8789 img"},
	{"harmless evidence", "GET http://127.0.0.1:18101/health from 127.0.0.1:18101 on 18101 via localhost debug=true"},
}

// Inputs are the corpus's inputs, one a line, and all of them joined by
// newlines: what a writer under test is fed.
func Inputs() (lines []string, joined string) {
	for _, c := range Cases {
		lines = append(lines, c.In)
	}
	return lines, strings.Join(lines, "\n")
}

// Check fails t when out (what writer wrote from the Cases) still holds a
// secret, or lost a harmless value that in held.
func Check(t testing.TB, writer, in, out string) {
	t.Helper()
	for _, s := range Secrets {
		if strings.Contains(out, s) {
			t.Errorf("%s: secret %q survived in:\n%s", writer, s, out)
		}
	}
	for _, h := range Harmless {
		if strings.Contains(in, h) && !strings.Contains(out, h) {
			t.Errorf("%s: harmless %q was scrubbed from:\n%s", writer, h, out)
		}
	}
}
