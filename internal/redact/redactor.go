package redact

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Placeholder replaces every secret svc-ctl writes anywhere.
const Placeholder = "[redacted]"

// Redactor applies the rules to text, argv lists and structured values. It
// knows the env and env_file values of one configuration; the zero value and
// a nil *Redactor know none and still apply the URL, flag and key rules. It
// is safe for concurrent use (it is never changed after New).
type Redactor struct {
	values []string // secrets to match as whole tokens, longest first
}

// New returns a Redactor that hides every given value that is not Harmless
// wherever it occurs as a whole token. Pass every env and env_file value of
// the configuration.
func New(values ...string) *Redactor {
	seen := map[string]bool{}
	var keep []string
	for _, v := range values {
		if Harmless(v) || seen[v] {
			continue
		}
		seen[v] = true
		keep = append(keep, v)
	}
	// Longest first: a value that contains another is replaced whole, not
	// left half-shown.
	slices.SortStableFunc(keep, func(a, b string) int { return len(b) - len(a) })
	return &Redactor{values: keep}
}

// String scrubs free text (a log line, an output tail, an error message):
// configured values as whole tokens, URL secrets, values of secret flags and
// of secret keys.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	// URLs first: a proxy URL configured in env keeps its host and port as
	// evidence once its userinfo is gone, instead of vanishing whole.
	if strings.Contains(s, "://") {
		s = urlRE.ReplaceAllStringFunc(s, URL)
	}
	if r != nil {
		for _, v := range r.values {
			s = replaceToken(s, v)
		}
	}
	if mayNameUser(s) {
		s = replaceUserPass(s)
	}
	if !mayNameSecret(s) {
		return s // no key or flag in it can be secret: skip the regexps
	}
	if strings.Contains(s, "-") {
		s = replaceValues(s, flagRE, IsSecretFlag)
	}
	if strings.ContainsAny(s, "=:") {
		s = replaceValues(s, keyValueRE, IsSecretKey)
	}
	return s
}

// nameHints are substrings every secret key or flag name holds (see
// secretWord), lower case.
var nameHints = []string{"pass", "pw", "secret", "token", "cookie", "credential", "private", "key", "dsn", "auth"}

// mayNameSecret is a cheap first look: false when no word of s can make a
// key or flag secret, so most log lines skip the key and flag rules.
func mayNameSecret(s string) bool {
	l := strings.ToLower(s)
	for _, h := range nameHints {
		if strings.Contains(l, h) {
			return true
		}
	}
	return false
}

// Lines is String over each element, in a new slice.
func (r *Redactor) Lines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = r.String(l)
	}
	return out
}

// Args scrubs an argv list, in a new slice: the argument after a bare
// secret flag ("--token", "X"), the value of "--token=X" and of "TOKEN=X",
// and, in every other argument, what String hides.
func (r *Redactor) Args(argv []string) []string {
	out := make([]string, len(argv))
	hideNext, hidePass := false, false
	for i, a := range argv {
		key, _, hasValue := strings.Cut(a, "=")
		switch {
		case hideNext:
			out[i], hideNext = Placeholder, false
		case hidePass:
			out[i], hidePass = UserPass(a), false
		case hasValue && IsUserFlag(key):
			out[i] = key + "=" + UserPass(a[len(key)+1:])
		case IsUserFlag(a):
			out[i], hidePass = a, true
		case hasValue && !strings.Contains(key, "://") && IsSecretKey(key):
			out[i] = key + "=" + Placeholder
		case IsSecretFlag(a):
			out[i], hideNext = a, true
		default:
			out[i] = r.String(a)
		}
	}
	return out
}

// IsUserFlag reports whether a is a flag whose value is "user:password":
// curl's -u/--user and -U/--proxy-user, the usual way a health-check
// one-liner carries a credential.
func IsUserFlag(a string) bool {
	switch a {
	case "-u", "-U", "--user", "--proxy-user":
		return true
	}
	return false
}

// UserPass hides the password of a "user:password" value and keeps the user,
// who is evidence; a value without a colon, or whose part after it is
// harmless ("1000:1000", a uid:gid), is kept whole.
func UserPass(v string) string {
	user, pass, ok := strings.Cut(v, ":")
	if !ok || pass == Placeholder || Harmless(pass) {
		return v
	}
	return user + ":" + Placeholder
}

// mayNameUser is the cheap first look for replaceUserPass.
func mayNameUser(s string) bool {
	return strings.Contains(s, ":") && (strings.Contains(s, "-u") || strings.Contains(s, "-U"))
}

// replaceUserPass hides the password of every "user:password" after a user
// flag in free text ("curl -u admin:pw ...", "--user=admin:pw").
func replaceUserPass(s string) string {
	return userFlagRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := userFlagRE.FindStringSubmatch(m)
		if !IsUserFlag(sub[1]) {
			return m
		}
		return strings.TrimSuffix(m, sub[2]) + UserPass(sub[2])
	})
}

// IsSecretFlag reports whether a is a command-line flag ("-p", "--token")
// whose value is a secret.
func IsSecretFlag(a string) bool {
	return strings.HasPrefix(a, "-") && len(strings.TrimLeft(a, "-")) > 0 && IsSecretKey(a)
}

// Env returns env with its names kept and every value replaced: env is where
// tokens and proxy passwords live, and a config view or a status listing
// needs only the names.
func Env(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	for k := range env {
		out[k] = Placeholder
	}
	return out
}

// Names returns the sorted names of env.
func Names(env map[string]string) []string {
	return slices.Sorted(maps.Keys(env))
}

// Value scrubs anything that marshals to JSON and returns its generic form
// (maps, slices, strings, numbers): every string through String, and the
// whole value under a secret key — a string becomes the placeholder, any
// other value null (so that decoding it back into a typed field cannot
// fail). A value that does not marshal is returned as the placeholder: what
// cannot be inspected is not written.
func (r *Redactor) Value(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return Placeholder
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		return Placeholder
	}
	return r.walk(g)
}

// Same scrubs v as Value does and decodes the result back into v's type.
// ok is false (and out the zero value) when that is not possible: the caller
// must not write the original then.
func Same[T any](r *Redactor, v T) (out T, ok bool) {
	b, err := json.Marshal(r.Value(v))
	if err != nil {
		return out, false
	}
	if err := json.Unmarshal(b, &out); err != nil {
		var zero T
		return zero, false
	}
	return out, true
}

func (r *Redactor) walk(v any) any {
	switch t := v.(type) {
	case string:
		return r.String(t)
	case []any:
		for i := range t {
			t[i] = r.walk(t[i])
		}
		return t
	case map[string]any:
		for k, x := range t {
			switch {
			case !IsSecretKey(k):
				t[k] = r.walk(x)
			case isString(x):
				t[k] = Placeholder
			default:
				t[k] = nil
			}
		}
		return t
	default:
		return v
	}
}

func isString(v any) bool { _, ok := v.(string); return ok }

// replaceToken replaces every occurrence of v in s that is a whole token:
// where v starts with a word character, the byte before it is not one, and
// where v ends with one, the byte after it is not one. "s3cret" is hidden in
// "pw=s3cret;" but not in "s3crets".
func replaceToken(s, v string) string {
	i := strings.Index(s, v)
	if i < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i >= 0 {
		end := i + len(v)
		if wholeToken(s, i, end) {
			b.WriteString(s[last:i])
			b.WriteString(Placeholder)
			last = end
			i = indexFrom(s, v, end)
			continue
		}
		i = indexFrom(s, v, i+1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func indexFrom(s, v string, from int) int {
	if from > len(s) {
		return -1
	}
	j := strings.Index(s[from:], v)
	if j < 0 {
		return -1
	}
	return from + j
}

func wholeToken(s string, start, end int) bool {
	if isWordByte(s[start]) && start > 0 && isWordByte(s[start-1]) {
		return false
	}
	if isWordByte(s[end-1]) && end < len(s) && isWordByte(s[end]) {
		return false
	}
	return true
}

// isWordByte: ASCII letters, digits, '_', and any byte of a non-ASCII
// character (so a token is never cut inside a UTF-8 sequence).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

var (
	// flagRE: a flag at the start of a token, then its value after spaces or
	// "=" ("--password hunter2", "-token=x").
	flagRE = regexp.MustCompile(`(?:^|[\s"'(\[,])(--?[A-Za-z][A-Za-z0-9_-]*)(?:[ \t]+|=)([^\s"',;]+)`)
	// userFlagRE: a user flag at the start of a token, then a value with a
	// colon ("-u admin:pw", "--user=admin:pw"); IsUserFlag decides.
	userFlagRE = regexp.MustCompile(`(?:^|[\s"'(\[,])(--?[A-Za-z][A-Za-z-]*)(?:[ \t]+|=)([^\s"',;:]*:[^\s"',;]+)`)
	// keyValueRE: key = value, key: value, "key":"value", and HTTP-style
	// "Authorization: Bearer value" (the scheme word stays).
	keyValueRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.-]*)"?[ \t]*[:=][ \t]*"?(?:(?i:bearer|basic|token|digest)[ \t]+)?([^\s"',;&]+)`)
)

// replaceValues hides group 2 (the value) of every match of re whose group
// 1 (the key or flag) is secret. After a match that is not secret, the
// search goes on from its value, not past it: in "config: db_password=x"
// the value of "config" holds the secret key.
func replaceValues(s string, re *regexp.Regexp, secret func(string) bool) string {
	var b strings.Builder
	last, pos := 0, 0
	for pos < len(s) {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		key, vStart, vEnd := s[pos+m[2]:pos+m[3]], pos+m[4], pos+m[5]
		if !secret(key) || s[vStart:vEnd] == Placeholder {
			pos = vStart // after the key: always progress
			continue
		}
		b.WriteString(s[last:vStart])
		b.WriteString(Placeholder)
		last, pos = vEnd, vEnd
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Fields scrubs a detail map in place and returns it, keeping the types of
// its values (an int stays an int, unlike Value's JSON round trip): strings,
// []string, []any and nested maps are walked, the value under a secret key
// becomes the placeholder, and anything else (numbers, booleans, times) is
// kept as it is. For maps whose values are primitives, like a probe's
// detail; anything richer goes through Value.
func (r *Redactor) Fields(m map[string]any) map[string]any {
	for k, v := range m {
		if IsSecretKey(k) {
			m[k] = Placeholder
			continue
		}
		m[k] = r.field(v)
	}
	return m
}

func (r *Redactor) field(v any) any {
	switch t := v.(type) {
	case string:
		return r.String(t)
	case []string:
		return r.Lines(t)
	case []any:
		for i := range t {
			t[i] = r.field(t[i])
		}
		return t
	case map[string]any:
		return r.Fields(t)
	}
	return v
}
