package probe

import (
	"net/url"
	"sort"
	"strings"
)

const redacted = "[redacted]"

// minEnvSecretLen is the shortest env value scrubbed from output: shorter
// values ("1", "on") are not secrets, and replacing them would shred the text.
const minEnvSecretLen = 4

// secretWords mark a flag or key whose value must not be shown.
var secretWords = []string{"password", "passwd", "secret", "token", "cookie", "authorization", "apikey", "api-key", "api_key", "credential", "private"}

// displayTarget is what the Result shows as Target: the spec's target with
// every secret it may carry replaced.
func displayTarget(s Spec) string {
	if s.Kind == KindExec {
		return strings.Join(redactArgv(s.Argv, s.Env), " ")
	}
	if strings.Contains(s.Target, "://") {
		return redactURL(s.Target)
	}
	return s.Target
}

// redactURL keeps scheme, host and path and replaces the userinfo and every
// query value. A URL that does not parse is not shown at all: its text may
// be a secret.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[unparsable URL]"
	}
	if u.Opaque != "" {
		return u.Scheme + ":" + redacted
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + "://")
	}
	if u.User != nil {
		b.WriteString(redacted + "@")
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" {
		b.WriteString("?" + redactQuery(u.RawQuery))
	}
	return b.String()
}

// redactQuery keeps the keys and replaces the values; a part without "="
// may itself be a key (an API key passed bare), so it goes too.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + redacted
		} else if p != "" {
			parts[i] = redacted
		}
	}
	return strings.Join(parts, "&")
}

// redactArgv hides the values of secret-looking flags ("--token X",
// "--password=X", "API_KEY=X"), the secrets of URL arguments and any env
// value that appears in an argument.
func redactArgv(argv []string, env map[string]string) []string {
	out := make([]string, len(argv))
	hideNext := false
	for i, a := range argv {
		key, _, hasValue := strings.Cut(a, "=")
		switch {
		case hideNext:
			out[i], hideNext = redacted, false
		case isSecretKey(key) && hasValue:
			out[i] = key + "=" + redacted
		case isSecretKey(key) && strings.HasPrefix(a, "-"):
			out[i], hideNext = a, true
		case strings.Contains(a, "://"):
			out[i] = redactURL(a)
		default:
			out[i] = scrubEnv(a, env)
		}
	}
	return out
}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// scrubEnv replaces every env value (of at least minEnvSecretLen bytes) that
// occurs in text. Longer values go first, so a value that contains another
// is not left half-shown.
func scrubEnv(text string, env map[string]string) string {
	if len(env) == 0 || text == "" {
		return text
	}
	vals := make([]string, 0, len(env))
	for _, v := range env {
		if len(v) >= minEnvSecretLen {
			vals = append(vals, v)
		}
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, v := range vals {
		text = strings.ReplaceAll(text, v, redacted)
	}
	return text
}
