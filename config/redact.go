package config

import (
	"reflect"

	"svcctl/internal/redact"
)

// View is the resolved config as `svc-ctl config check` prints it: every
// default filled in, durations written as in the file ("10m", "40d"), its
// JSON names and its TOML keys (the text form) those of the file, so it can
// be read against the file it came from. Secrets are not in it: env values, URL passwords
// and query values, and arguments of secret-looking flags are [redacted]
// (internal/redact).
type View struct {
	Path string `json:"path,omitempty" toml:"-"`
	// Include are the main file's patterns, Files what each matched,
	// Sources which file each table came from ("service proxy" -> file).
	// The TOML form holds every table already (it loads as one file), so
	// it leaves them out; `config check` prints them as comments.
	Include []string          `json:"include,omitempty" toml:"-"`
	Files   []IncludeMatch    `json:"include_files,omitempty" toml:"-"`
	Sources map[string]string `json:"sources,omitempty" toml:"-"`
	// The tables: each a struct derived from the schema (view.go), one
	// field per key under the key's name.
	Agent    any   `json:"agent" toml:"agent"`
	Services []any `json:"service" toml:"service,omitempty"`
	Jobs     []any `json:"job" toml:"job,omitempty"`
	Notify   []any `json:"notify" toml:"notify,omitempty"`
}

// Redacted returns the printable view of c, written with the one rule set
// (internal/redact) that knows every env and env_file value of c.
func (c *Config) Redacted() View {
	r := redact.New(c.SecretValues()...)
	v := View{
		Path:     c.Path,
		Agent:    viewOf(typeRawAgent, reflect.TypeFor[Agent](), "").print(r, reflect.ValueOf(c.Agent), nil).Interface(),
		Services: tableViews(r, typeRawService, c.Services),
		Jobs:     tableViews(r, typeRawJob, c.Jobs),
		Notify:   make([]any, 0, len(c.Notify)),
	}
	for i := range c.Notify {
		n := &c.Notify[i]
		v.Notify = append(v.Notify, viewOf(typeRawNotify, reflect.TypeFor[Notify](), n.Kind).print(r, reflect.ValueOf(*n), n.Keys).Interface())
	}
	for _, m := range c.Includes {
		v.Include = append(v.Include, m.Pattern)
		v.Files = append(v.Files, m)
	}
	if len(c.Includes) > 0 {
		v.Sources = map[string]string{}
		for _, s := range c.Services {
			v.Sources["service "+s.Name] = c.Source("service", s.Name)
		}
		for _, j := range c.Jobs {
			v.Sources["job "+j.Name] = c.Source("job", j.Name)
		}
		for _, n := range c.Notify {
			v.Sources["notify "+n.Name] = c.Source("notify", n.Name)
		}
	}
	return v
}

// tableViews are the views of a list of tables without a kind key
// ([[service]], [[job]]).
func tableViews[T any](r *redact.Redactor, raw reflect.Type, typed []T) []any {
	t := viewOf(raw, reflect.TypeFor[T](), "")
	out := make([]any, 0, len(typed))
	for i := range typed {
		out = append(out, t.print(r, reflect.ValueOf(typed[i]), nil).Interface())
	}
	return out
}
