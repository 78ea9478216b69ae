package config

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted is the placeholder for a value that is never printed.
const Redacted = "[redacted]"

// View is the resolved config as `svc-ctl config check` prints it: every
// default filled in, durations written as in the file ("10m", "40d"), JSON
// names as the TOML keys. Secrets are not in it: env values, URL passwords
// and query values, and arguments of secret-looking flags are [redacted].
type View struct {
	Path     string        `json:"path,omitempty"`
	Agent    AgentView     `json:"agent"`
	Services []ServiceView `json:"service"`
	Jobs     []JobView     `json:"job"`
}

// AgentView is [agent] in a View.
type AgentView struct {
	StateDir      string `json:"state_dir"`
	LogLevel      string `json:"log_level"`
	Retention     string `json:"retention"`
	DrainTimeout  string `json:"drain_timeout"`
	OnPanic       string `json:"on_panic"`
	Heartbeat     string `json:"heartbeat"`
	MetricsListen string `json:"metrics_listen"`
}

// ServiceView is one [[service]] in a View.
type ServiceView struct {
	Name         string            `json:"name"`
	Command      []string          `json:"command"`
	Dir          string            `json:"dir"`
	Env          map[string]string `json:"env"`
	Log          string            `json:"log"`
	Interval     string            `json:"interval"`
	StartTimeout string            `json:"start_timeout"`
	StopTimeout  string            `json:"stop_timeout"`
	Health       HealthView        `json:"health"`
	Depends      []DependView      `json:"depends"`
	Restart      RestartView       `json:"restart"`
}

// HealthView is [service.health] in a View.
type HealthView struct {
	TCP          string   `json:"tcp"`
	HTTP         string   `json:"http"`
	ExpectStatus int      `json:"expect_status"`
	ExpectBody   string   `json:"expect_body"`
	Timeout      string   `json:"timeout"`
	Confirm      string   `json:"confirm"`
	Exec         []string `json:"exec"`
}

// DependView is one depends entry in a View; keys its kind does not use are
// left out.
type DependView struct {
	Kind         string `json:"kind"`
	URL          string `json:"url,omitempty"`
	Address      string `json:"address,omitempty"`
	Host         string `json:"host,omitempty"`
	Path         string `json:"path,omitempty"`
	MaxAge       string `json:"max_age,omitempty"`
	MinValid     string `json:"min_valid,omitempty"`
	ExpectStatus int    `json:"expect_status,omitempty"`
	Timeout      string `json:"timeout"`
}

// RestartView is [service.restart] in a View.
type RestartView struct {
	BackoffInitial string `json:"backoff_initial"`
	BackoffMax     string `json:"backoff_max"`
	GiveUpAfter    int    `json:"give_up_after"`
	RetryGivenUp   string `json:"retry_given_up"`
}

// JobView is one [[job]] in a View.
type JobView struct {
	Name     string            `json:"name"`
	Schedule string            `json:"schedule"`
	Timezone string            `json:"timezone"`
	Command  []string          `json:"command"`
	Dir      string            `json:"dir"`
	Env      map[string]string `json:"env"`
	Timeout  string            `json:"timeout"`
	CatchUp  bool              `json:"catch_up"`
	Grace    string            `json:"grace"`
	External bool              `json:"external"`
	Depends  []DependView      `json:"depends"`
}

// Redacted returns the printable view of c.
func (c *Config) Redacted() View {
	a := c.Agent
	v := View{
		Path: c.Path,
		Agent: AgentView{
			StateDir: a.StateDir, LogLevel: a.LogLevel, Retention: FormatDuration(a.Retention),
			DrainTimeout: FormatDuration(a.DrainTimeout), OnPanic: a.OnPanic,
			Heartbeat: FormatDuration(a.Heartbeat), MetricsListen: a.MetricsListen,
		},
		Services: make([]ServiceView, 0, len(c.Services)),
		Jobs:     make([]JobView, 0, len(c.Jobs)),
	}
	for i := range c.Services {
		v.Services = append(v.Services, serviceView(&c.Services[i]))
	}
	for i := range c.Jobs {
		v.Jobs = append(v.Jobs, jobView(&c.Jobs[i]))
	}
	return v
}

func serviceView(s *Service) ServiceView {
	h := s.Health
	r := s.Restart
	return ServiceView{
		Name: s.Name, Command: RedactArgs(s.Command), Dir: s.Dir, Env: redactEnv(s.Env), Log: s.Log,
		Interval: FormatDuration(s.Interval), StartTimeout: FormatDuration(s.StartTimeout),
		StopTimeout: FormatDuration(s.StopTimeout),
		Health: HealthView{
			TCP: h.TCP, HTTP: RedactURL(h.HTTP), ExpectStatus: h.ExpectStatus, ExpectBody: h.ExpectBody,
			Timeout: FormatDuration(h.Timeout), Confirm: FormatDuration(h.Confirm), Exec: RedactArgs(h.Exec),
		},
		Depends: dependViews(s.Depends),
		Restart: RestartView{
			BackoffInitial: FormatDuration(r.BackoffInitial), BackoffMax: FormatDuration(r.BackoffMax),
			GiveUpAfter: r.GiveUpAfter, RetryGivenUp: FormatDuration(r.RetryGivenUp),
		},
	}
}

func jobView(j *Job) JobView {
	return JobView{
		Name: j.Name, Schedule: j.Schedule, Timezone: j.Timezone, Command: RedactArgs(j.Command),
		Dir: j.Dir, Env: redactEnv(j.Env), Timeout: FormatDuration(j.Timeout), CatchUp: j.CatchUp,
		Grace: FormatDuration(j.Grace), External: j.External, Depends: dependViews(j.Depends),
	}
}

func dependViews(ds []Depend) []DependView {
	out := make([]DependView, 0, len(ds))
	for _, d := range ds {
		dv := DependView{
			Kind: d.Kind, URL: RedactURL(d.URL), Address: d.Address, Host: d.Host, Path: d.Path,
			ExpectStatus: d.ExpectStatus, Timeout: FormatDuration(d.Timeout),
		}
		if d.MaxAge > 0 {
			dv.MaxAge = FormatDuration(d.MaxAge)
		}
		if d.MinValid > 0 {
			dv.MinValid = FormatDuration(d.MinValid)
		}
		out = append(out, dv)
	}
	return out
}

// redactEnv keeps the names and hides every value: env is where tokens and
// proxy passwords live.
func redactEnv(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	for k := range env {
		out[k] = Redacted
	}
	return out
}

// RedactURL hides the password (or a lone user token) and every query value
// of a URL; a string that does not parse as a URL is returned unchanged
// only if it has no '@' and no '?', else as [redacted].
func RedactURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		if strings.ContainsAny(s, "@?") {
			return Redacted
		}
		return s
	}
	if u.User == nil && u.RawQuery == "" {
		return s // nothing to hide: keep it exactly as written
	}
	if u.User != nil {
		if _, hasPassword := u.User.Password(); hasPassword {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		} else {
			u.User = url.User(Redacted) // https://TOKEN@host: the name is the secret
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{Redacted}
		}
		u.RawQuery = q.Encode()
	}
	// Keep the placeholder readable rather than percent-encoded.
	return strings.NewReplacer("%5Bredacted%5D", Redacted).Replace(u.String())
}

// secretFlag matches flag names that carry a secret: --token, -password,
// --api-key, --client_secret ...
var secretFlag = regexp.MustCompile(`(?i)^--?[a-z0-9_-]*(password|passwd|secret|token|api[_-]?key|auth|cookie|credential)[a-z0-9_-]*$`)

// RedactArgs hides the values of secret-looking flags in an argv:
// "--token=abc" becomes "--token=[redacted]" and the argument after a bare
// "--token" becomes "[redacted]". URLs in arguments are redacted as by
// RedactURL.
func RedactArgs(argv []string) []string {
	out := make([]string, len(argv))
	copy(out, argv)
	for i := 0; i < len(out); i++ {
		name, _, hasValue := strings.Cut(out[i], "=")
		switch {
		case secretFlag.MatchString(name) && hasValue:
			out[i] = name + "=" + Redacted
		case secretFlag.MatchString(name) && i+1 < len(out):
			out[i+1] = Redacted
			i++
		case strings.Contains(out[i], "://"):
			out[i] = RedactURL(out[i])
		}
	}
	return out
}
