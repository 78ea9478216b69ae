package watchdog

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"svcctl/config"
	"svcctl/snapshot"
)

// Redacted replaces every secret svc-ctl writes anywhere.
const Redacted = "[redacted]"

// secretKey matches keys whose values are never written.
var secretKey = regexp.MustCompile(`(?i)(pass(word|wd)?|secret|token|cookie|authori[sz]ation|api[_-]?key|credential)`)

// IsSecretKey reports whether a key's value must be redacted.
func IsSecretKey(k string) bool { return secretKey.MatchString(k) }

// Redactor scrubs the env values of a service (and anything under a secret
// key) out of strings and nested detail before they reach a log, a snapshot
// or the ledger.
type Redactor struct{ values []string }

// NewRedactor collects the values to scrub from every service's and job's env.
func NewRedactor(cfg *config.Config) *Redactor {
	seen := map[string]bool{}
	var vals []string
	add := func(env map[string]string) {
		for _, v := range env {
			// Very short values ("1", "on") would scrub half of every line; they
			// are flags, not secrets.
			if len(v) >= 4 && !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
	}
	for _, s := range cfg.Services {
		add(s.Env)
	}
	for _, j := range cfg.Jobs {
		add(j.Env)
	}
	// Longest first, so a value containing another is replaced whole.
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	return &Redactor{values: vals}
}

func (c *cycle) redactor() *Redactor { return c.s.red }

// Redactor is the supervisor's redactor, for what runs beside its cycles
// (the agent's jobs) and must scrub the same values.
func (s *Supervisor) Redactor() *Redactor { return s.red }

// line scrubs one string.
func (r *Redactor) line(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted)
		}
	}
	return s
}

// String is line, exported for the log handler.
func (r *Redactor) String(s string) string { return r.line(s) }

// Lines scrubs each line.
func (r *Redactor) Lines(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = r.line(l)
	}
	return out
}

// Value scrubs any JSON-marshalable value: strings anywhere in it, and whole
// values under secret-looking keys. It returns the scrubbed generic form.
func (r *Redactor) Value(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		return v
	}
	return r.walk(g)
}

func (r *Redactor) walk(v any) any {
	switch t := v.(type) {
	case string:
		return r.line(t)
	case []any:
		for i := range t {
			t[i] = r.walk(t[i])
		}
		return t
	case map[string]any:
		for k, x := range t {
			if IsSecretKey(k) {
				t[k] = Redacted
				continue
			}
			t[k] = r.walk(x)
		}
		return t
	default:
		return v
	}
}

// detail scrubs a cycle's detail, keeping its type.
func (r *Redactor) detail(d Detail) Detail {
	g := r.Value(d)
	b, err := json.Marshal(g)
	if err != nil {
		return d
	}
	var out Detail
	if err := json.Unmarshal(b, &out); err != nil {
		return d
	}
	return out
}

// entry scrubs a snapshot entry (its log tail above all: a service may print
// its own secrets).
func (r *Redactor) entry(e snapshot.Entry) snapshot.Entry {
	e.Probes = r.Value(e.Probes)
	if e.Process != nil {
		e.Process = r.Value(e.Process)
	}
	return e
}
