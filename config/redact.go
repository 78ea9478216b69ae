package config

import (
	"strconv"

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
	Include  []string          `json:"include,omitempty" toml:"-"`
	Files    []IncludeMatch    `json:"include_files,omitempty" toml:"-"`
	Sources  map[string]string `json:"sources,omitempty" toml:"-"`
	Agent    AgentView         `json:"agent" toml:"agent"`
	Services []ServiceView     `json:"service" toml:"service,omitempty"`
	Jobs     []JobView         `json:"job" toml:"job,omitempty"`
	// Notify holds a NotifyView per channel; a channel of a kind its own
	// file registers holds NotifyView with that kind's keys (extView).
	Notify []any `json:"notify" toml:"notify,omitempty"`
}

// AgentView is [agent] in a View.
type AgentView struct {
	StateDir        string   `json:"state_dir" toml:"state_dir"`
	LogLevel        string   `json:"log_level" toml:"log_level"`
	Retention       string   `json:"retention" toml:"retention"`
	DrainTimeout    string   `json:"drain_timeout" toml:"drain_timeout"`
	OnPanic         string   `json:"on_panic" toml:"on_panic"`
	Heartbeat       string   `json:"heartbeat" toml:"heartbeat"`
	MetricsListen   string   `json:"metrics_listen" toml:"metrics_listen"`
	Ping            string   `json:"ping,omitempty" toml:"ping,omitempty"`
	PingFile        string   `json:"ping_file,omitempty" toml:"ping_file,omitempty"`
	PingEvery       string   `json:"ping_every,omitempty" toml:"ping_every,omitempty"`
	LogDestinations []string `json:"log_destinations" toml:"log_destinations"`
}

// ServiceView is one [[service]] in a View. Env lists every variable the
// service gets from env and env_file, each value [redacted].
type ServiceView struct {
	Name         string            `json:"name" toml:"name"`
	Command      []string          `json:"command" toml:"command"`
	Dir          string            `json:"dir" toml:"dir"`
	SearchPath   []string          `json:"search_path,omitempty" toml:"search_path,omitempty"`
	Env          map[string]string `json:"env" toml:"env,omitempty"`
	EnvFile      string            `json:"env_file" toml:"env_file"`
	User         string            `json:"user" toml:"user"`
	Group        string            `json:"group" toml:"group"`
	Log          string            `json:"log" toml:"log"`
	LogMax       string            `json:"log_max" toml:"log_max"`
	Interval     string            `json:"interval" toml:"interval"`
	StartTimeout string            `json:"start_timeout" toml:"start_timeout"`
	StopTimeout  string            `json:"stop_timeout" toml:"stop_timeout"`
	StopSignal   string            `json:"stop_signal,omitempty" toml:"stop_signal,omitempty"`
	KillMode     string            `json:"kill_mode" toml:"kill_mode"`
	StopCommand  []string          `json:"stop_command,omitempty" toml:"stop_command,omitempty"`
	PidFile      string            `json:"pid_file,omitempty" toml:"pid_file,omitempty"`
	Health       HealthView        `json:"health" toml:"health"`
	Depends      []any             `json:"depends" toml:"depends,omitempty"` // DependView, with a registered kind's keys
	Restart      RestartView       `json:"restart" toml:"restart"`
	Limits       *LimitsView       `json:"limits,omitempty" toml:"limits,omitempty"`
	Ping         string            `json:"ping,omitempty" toml:"ping,omitempty"`
	PingFile     string            `json:"ping_file,omitempty" toml:"ping_file,omitempty"`
}

// LimitsView is [service.limits] in a View, when a limit is set.
type LimitsView struct {
	Memory string `json:"memory,omitempty" toml:"memory,omitempty"`
	CPU    string `json:"cpu,omitempty" toml:"cpu,omitempty"`
	For    string `json:"for" toml:"for"`
}

// HealthView is [service.health] in a View.
type HealthView struct {
	TCP          string   `json:"tcp" toml:"tcp,omitempty"`
	HTTP         string   `json:"http" toml:"http,omitempty"`
	ExpectStatus int      `json:"expect_status" toml:"expect_status,omitempty"`
	ExpectBody   string   `json:"expect_body" toml:"expect_body,omitempty"`
	Timeout      string   `json:"timeout" toml:"timeout"`
	Confirm      string   `json:"confirm" toml:"confirm"`
	Exec         []string `json:"exec" toml:"exec,omitempty"`
}

// DependView is one depends entry in a View; keys its kind does not use are
// left out.
type DependView struct {
	Kind         string `json:"kind" toml:"kind"`
	URL          string `json:"url,omitempty" toml:"url,omitempty"`
	Address      string `json:"address,omitempty" toml:"address,omitempty"`
	Host         string `json:"host,omitempty" toml:"host,omitempty"`
	Path         string `json:"path,omitempty" toml:"path,omitempty"`
	MaxAge       string `json:"max_age,omitempty" toml:"max_age,omitempty"`
	MinValid     string `json:"min_valid,omitempty" toml:"min_valid,omitempty"`
	ExpectStatus int    `json:"expect_status,omitempty" toml:"expect_status,omitempty"`
	Timeout      string `json:"timeout" toml:"timeout"`
}

// RestartView is [service.restart] in a View.
type RestartView struct {
	BackoffInitial string `json:"backoff_initial" toml:"backoff_initial"`
	BackoffMax     string `json:"backoff_max" toml:"backoff_max"`
	GiveUpAfter    int    `json:"give_up_after" toml:"give_up_after"`
	RetryGivenUp   string `json:"retry_given_up" toml:"retry_given_up"`
	LoopRestarts   int    `json:"loop_restarts" toml:"loop_restarts"`
	LoopWindow     string `json:"loop_window" toml:"loop_window"`
}

// JobView is one [[job]] in a View.
type JobView struct {
	Name       string            `json:"name" toml:"name"`
	Schedule   string            `json:"schedule" toml:"schedule"`
	Timezone   string            `json:"timezone" toml:"timezone"`
	Command    []string          `json:"command" toml:"command"`
	Dir        string            `json:"dir" toml:"dir"`
	SearchPath []string          `json:"search_path,omitempty" toml:"search_path,omitempty"`
	Env        map[string]string `json:"env" toml:"env,omitempty"`
	EnvFile    string            `json:"env_file" toml:"env_file"`
	User       string            `json:"user" toml:"user"`
	Group      string            `json:"group" toml:"group"`
	LogMax     string            `json:"log_max" toml:"log_max"`
	Timeout    string            `json:"timeout" toml:"timeout"`
	CatchUp    bool              `json:"catch_up" toml:"catch_up"`
	Grace      string            `json:"grace" toml:"grace"`
	External   bool              `json:"external" toml:"external"`
	Depends    []any             `json:"depends" toml:"depends,omitempty"` // as ServiceView's
	Ping       string            `json:"ping,omitempty" toml:"ping,omitempty"`
	PingFile   string            `json:"ping_file,omitempty" toml:"ping_file,omitempty"`
}

// NotifyView is one [[notify]] in a View. The URL keeps its scheme and host
// only: an ntfy topic or a ping UUID in the path is as good as a password.
type NotifyView struct {
	Name        string   `json:"name" toml:"name"`
	Kind        string   `json:"kind" toml:"kind"`
	URL         string   `json:"url,omitempty" toml:"url,omitempty"`
	On          []string `json:"on" toml:"on"`
	MinInterval string   `json:"min_interval,omitempty" toml:"min_interval,omitempty"`
	Secret      string   `json:"secret,omitempty" toml:"secret,omitempty"`
	Token       string   `json:"token,omitempty" toml:"token,omitempty"`
	URLFile     string   `json:"url_file,omitempty" toml:"url_file,omitempty"`
	SecretFile  string   `json:"secret_file,omitempty" toml:"secret_file,omitempty"`
	TokenFile   string   `json:"token_file,omitempty" toml:"token_file,omitempty"`
	Priority    string   `json:"priority,omitempty" toml:"priority,omitempty"`
	Tags        []string `json:"tags,omitempty" toml:"tags,omitempty"`
	Command     []string `json:"command,omitempty" toml:"command,omitempty"`
	User        string   `json:"user,omitempty" toml:"user,omitempty"`
	Group       string   `json:"group,omitempty" toml:"group,omitempty"`
	Timeout     string   `json:"timeout" toml:"timeout"`
	*OTLPView
}

// OTLPView is what an otlp channel adds to its NotifyView. Header values
// are [redacted].
type OTLPView struct {
	Headers            map[string]string `json:"headers,omitempty" toml:"headers,omitempty"`
	HeadersFile        string            `json:"headers_file,omitempty" toml:"headers_file,omitempty"`
	CAFile             string            `json:"ca_file,omitempty" toml:"ca_file,omitempty"`
	CertFile           string            `json:"cert_file,omitempty" toml:"cert_file,omitempty"`
	KeyFile            string            `json:"key_file,omitempty" toml:"key_file,omitempty"`
	Gzip               bool              `json:"gzip" toml:"gzip"`
	Encoding           string            `json:"encoding" toml:"encoding"`
	Rows               string            `json:"rows" toml:"rows"`
	MetricsEvery       string            `json:"metrics_every" toml:"metrics_every"`
	ResourceAttributes map[string]string `json:"resource_attributes,omitempty" toml:"resource_attributes,omitempty"`
}

// Redacted returns the printable view of c, written with the one rule set
// (internal/redact) that knows every env and env_file value of c.
func (c *Config) Redacted() View {
	r := redact.New(c.SecretValues()...)
	a := c.Agent
	v := View{
		Path: c.Path,
		Agent: AgentView{
			StateDir: a.StateDir, LogLevel: a.LogLevel, Retention: FormatDuration(a.Retention),
			DrainTimeout: FormatDuration(a.DrainTimeout), OnPanic: a.OnPanic,
			Heartbeat: FormatDuration(a.Heartbeat), MetricsListen: a.MetricsListen,
			Ping: pingView(a.Ping, a.PingFile), PingFile: a.PingFile, LogDestinations: a.LogDestinations,
		},
		Services: make([]ServiceView, 0, len(c.Services)),
		Jobs:     make([]JobView, 0, len(c.Jobs)),
		Notify:   make([]any, 0, len(c.Notify)),
	}
	if a.Ping != "" {
		v.Agent.PingEvery = FormatDuration(a.PingEvery)
	}
	for i := range c.Notify {
		v.Notify = append(v.Notify, extView(typeRawNotify, c.Notify[i].Kind, notifyView(r, &c.Notify[i]), c.Notify[i].Keys))
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
	for i := range c.Services {
		v.Services = append(v.Services, serviceView(r, &c.Services[i]))
	}
	for i := range c.Jobs {
		v.Jobs = append(v.Jobs, jobView(r, &c.Jobs[i]))
	}
	return v
}

func serviceView(r *redact.Redactor, s *Service) ServiceView {
	h := s.Health
	rs := s.Restart
	return ServiceView{
		Name: s.Name, Command: r.Args(s.Command), Dir: s.Dir, SearchPath: s.SearchPath, Env: redact.Env(s.Env), EnvFile: s.EnvFile,
		User: s.RunAs.User, Group: s.RunAs.Group, Log: s.Log, LogMax: FormatSize(s.LogMax),
		Interval: FormatDuration(s.Interval), StartTimeout: FormatDuration(s.StartTimeout),
		StopTimeout: FormatDuration(s.StopTimeout),
		StopSignal:  s.StopSignal, KillMode: s.KillMode, StopCommand: r.Args(s.StopCommand), PidFile: s.PidFile,
		Health: HealthView{
			TCP: h.TCP, HTTP: r.String(h.HTTP), ExpectStatus: h.ExpectStatus, ExpectBody: h.ExpectBody,
			Timeout: FormatDuration(h.Timeout), Confirm: FormatDuration(h.Confirm), Exec: r.Args(h.Exec),
		},
		Depends: dependViews(r, s.Depends),
		Restart: RestartView{
			BackoffInitial: FormatDuration(rs.BackoffInitial), BackoffMax: FormatDuration(rs.BackoffMax),
			GiveUpAfter: rs.GiveUpAfter, RetryGivenUp: FormatDuration(rs.RetryGivenUp),
			LoopRestarts: rs.LoopRestarts, LoopWindow: FormatDuration(rs.LoopWindow),
		},
		Limits: limitsView(s.Limits),
		Ping:   pingView(s.Ping, s.PingFile), PingFile: s.PingFile,
	}
}

func limitsView(l Limits) *LimitsView {
	if !l.Set() {
		return nil
	}
	v := &LimitsView{For: FormatDuration(l.For)}
	if l.Memory > 0 {
		v.Memory = FormatSize(l.Memory)
	}
	if l.CPU > 0 {
		v.CPU = strconv.FormatFloat(l.CPU, 'f', -1, 64) + "%"
	}
	return v
}

func notifyView(r *redact.Redactor, n *Notify) NotifyView {
	on := n.On
	if len(on) == 0 {
		on = EventKinds
	}
	v := NotifyView{
		Name: n.Name, Kind: n.Kind, URL: redact.SecretURL(n.URL), On: on,
		MinInterval: FormatDuration(n.MinInterval), Secret: redactSet(n.Secret), Token: redactSet(n.Token),
		URLFile: n.URLFile, SecretFile: n.SecretFile, TokenFile: n.TokenFile,
		Priority: n.Priority, Tags: n.Tags, Command: r.Args(n.Command), Timeout: FormatDuration(n.Timeout),
		User: n.RunAs.User, Group: n.RunAs.Group,
	}
	// A value read from a file is shown as the file: the view stays a config
	// that loads (one of key and key_file).
	if n.URLFile != "" {
		v.URL = ""
	}
	if n.SecretFile != "" {
		v.Secret = ""
	}
	if n.TokenFile != "" {
		v.Token = ""
	}
	if n.Kind == NotifyOTLP {
		v.MinInterval = ""
		o := n.OTLP
		v.OTLPView = &OTLPView{HeadersFile: o.HeadersFile, CAFile: o.CAFile, CertFile: o.CertFile, KeyFile: o.KeyFile,
			Gzip: o.Gzip, Encoding: o.Encoding, Rows: o.Rows, MetricsEvery: FormatDuration(o.MetricsEvery),
			ResourceAttributes: o.ResourceAttributes}
		if len(o.Headers) > 0 {
			v.Headers = map[string]string{}
			for k := range o.Headers {
				v.Headers[k] = redact.Placeholder
			}
		}
	}
	return v
}

// pingView is a ping URL as shown: its host only, or nothing when it was
// read from ping_file (the view shows the file).
func pingView(ping, file string) string {
	if file != "" {
		return ""
	}
	return redact.SecretURL(ping)
}

// redactSet shows that a secret is set without showing it.
func redactSet(s string) string {
	if s == "" {
		return ""
	}
	return redact.Placeholder
}

func jobView(r *redact.Redactor, j *Job) JobView {
	return JobView{
		Name: j.Name, Schedule: j.Schedule, Timezone: j.Timezone, Command: r.Args(j.Command),
		Dir: j.Dir, SearchPath: j.SearchPath, Env: redact.Env(j.Env), EnvFile: j.EnvFile, User: j.RunAs.User, Group: j.RunAs.Group,
		LogMax: FormatSize(j.LogMax), Timeout: FormatDuration(j.Timeout), CatchUp: j.CatchUp,
		Grace: FormatDuration(j.Grace), External: j.External, Depends: dependViews(r, j.Depends),
		Ping: pingView(j.Ping, j.PingFile), PingFile: j.PingFile,
	}
}

func dependViews(r *redact.Redactor, ds []Depend) []any {
	out := make([]any, 0, len(ds))
	for _, d := range ds {
		dv := DependView{
			Kind: d.Kind, URL: r.String(d.URL), Address: d.Address, Host: d.Host, Path: d.Path,
			ExpectStatus: d.ExpectStatus, Timeout: FormatDuration(d.Timeout),
		}
		if d.MaxAge > 0 {
			dv.MaxAge = FormatDuration(d.MaxAge)
		}
		if d.MinValid > 0 {
			dv.MinValid = FormatDuration(d.MinValid)
		}
		out = append(out, extView(typeRawDepend, d.Kind, dv, d.Keys))
	}
	return out
}
