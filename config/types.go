package config

import (
	"reflect"
	"time"
)

// Config is a loaded, defaulted and validated svc-ctl configuration. Every
// duration is resolved; every path is absolute; Location is set on each job.
type Config struct {
	// Path is the absolute path of the file this was loaded from ("" when it
	// came from memory, e.g. the embedded demo config).
	Path string
	// Digest (SHA-256, hex) and ModTime are those of the file as it was
	// read: `status` compares them with the file on disk now, to tell a
	// config changed since the agent loaded it. Empty from memory.
	Digest   string
	ModTime  time.Time
	Agent    Agent
	Services []Service
	Jobs     []Job
	Notify   []Notify
	// UnreadEnvFiles lists the env_files this process was not allowed to
	// read (LoadToRead only; Load and LoadToRun fail instead): their
	// variables are missing from Env.
	UnreadEnvFiles []string
	// Includes are the main file's include patterns and what each matched;
	// Files every file read, the main one first (include.go).
	Includes []IncludeMatch
	Files    []SourceFile
	// sources: "service:NAME" (job, notify) -> the file defining it.
	sources map[string]string
}

// Agent is the [agent] table.
type Agent struct {
	StateDir      string        // absolute; default per OS (DefaultStateDir)
	LogLevel      string        // debug | info | warn | error
	Retention     time.Duration // default 40d
	DrainTimeout  time.Duration // default 30s
	OnPanic       string        // continue | exit
	Heartbeat     time.Duration // default 30s
	MetricsListen string        // "" = off
	// Ping is the agent's own healthchecks-style check: /start at start and
	// at wake, the bare URL every PingEvery, /fail when verify at start
	// fails or the ledger cannot be written. "" = none; a secret.
	Ping      string
	PingFile  string        // the file Ping was read from (ping_file); "" when written in the config
	PingEvery time.Duration // default 5m
	// LogDestinations are where agent.log's lines go: LogFile, LogJournal,
	// LogEventLog. Default ["file"].
	LogDestinations []string
}

// Log destinations of [agent] log_destinations.
const (
	LogFile     = "file"
	LogJournal  = "journal"
	LogEventLog = "eventlog"
)

// LogsTo reports whether the agent's log goes to destination d.
func (a *Agent) LogsTo(d string) bool {
	for _, x := range a.LogDestinations {
		if x == d {
			return true
		}
	}
	return false
}

// Service is one [[service]] table.
type Service struct {
	Name    string
	Command []string // argv; never a shell
	Dir     string   // working directory; "" = the home of the user it runs as (internal/svcenv)
	// SearchPath is search_path: absolute directories put before the base
	// PATH, where bare program names are looked up too.
	SearchPath []string
	// Env is what the service gets on top of the agent's base environment:
	// the env_file's variables overlaid by env's (env wins). Every value is a
	// secret to every writer (EnvValues).
	Env     map[string]string
	EnvFile string // absolute path of env_file as written; "" = none (already read into Env)
	// EnvKeys are the names written in env itself (not env_file's): what
	// `verify` weighs against who may read the config.
	EnvKeys []string
	RunAs   RunAs  // user and group; zero = the agent's own
	Log     string // absolute; default <state>/services/<name>/runtime.log
	// LogMax is the size past which runtime.log is rotated while the service
	// runs; it also caps a job's last.log. Default 50MiB.
	LogMax       int64
	Interval     time.Duration // default 10m, at least 1s
	StartTimeout time.Duration // default 8s
	StopTimeout  time.Duration // default 10s
	// StopSignal is the signal a stop sends ("SIGTERM", "SIGINT"...; on
	// Windows only "SIGBREAK"); "" = the OS's default (SIGTERM; on Windows
	// the job object is terminated).
	StopSignal string
	// KillMode is KillTree ("tree": the stop signal to every process of
	// the instance, the default) or KillMain ("main": to its main process
	// only, SIGKILL for the rest at stop_timeout).
	KillMode string
	// StopCommand, when set, runs before the stop signal (argv; never a
	// shell), as the service's user with its environment.
	StopCommand []string
	// PidFile is the file the service's daemon writes its pid to (absolute;
	// "" = none): its process is adopted as the instance's main process.
	PidFile  string
	Health   Health
	Depends  []Depend
	Restart  Restart
	Limits   Limits
	Ping     string // healthchecks-style URL pinged after every healthy cycle; "" = none; a secret
	PingFile string // the file Ping was read from (ping_file); "" when written in the config
}

// Limits is [service.limits]: resource limits over the service's whole
// process tree. Over a limit for For, the watchdog restarts the service
// (cause resource-limit). Zero values mean no limit.
type Limits struct {
	Memory int64         // resident memory of the tree, bytes; 0 = none
	CPU    float64       // percent of one core, averaged over For; 0 = none
	For    time.Duration // how long the tree may stay over a limit; default 5m
}

// Set reports whether any limit is set.
func (l Limits) Set() bool { return l.Memory > 0 || l.CPU > 0 }

// Health is [service.health]. At least one of TCP, HTTP, Exec is set.
type Health struct {
	TCP          string        // host:port
	HTTP         string        // URL
	ExpectStatus int           // 0 = any 2xx
	ExpectBody   string        // regexp; "" = no check
	Timeout      time.Duration // default 2s; bounds the whole check
	Confirm      time.Duration // default 1s; 0 = no second look
	Exec         []string      // argv; exit 0 = healthy
}

// Depend is one [[service.depends]] or [[job.depends]] entry.
type Depend struct {
	Kind         string        // http | tcp | dns | file | cert
	URL          string        // http: the URL; cert: an https:// endpoint (alternative to Path)
	Address      string        // tcp: host:port
	Host         string        // dns: the name that must resolve
	Path         string        // file: must exist; cert: a PEM file
	MaxAge       time.Duration // file: optional freshness bound (0 = any age)
	MinValid     time.Duration // cert: must stay valid at least this long (default 0)
	ExpectStatus int           // http: 0 = any 2xx
	Timeout      time.Duration // default 5s
	// Keys are the keys of a kind its own file registers
	// (RegisterDependKind), as Notify.Keys; nil for raw.go's kinds.
	Keys any
}

// Restart is [service.restart].
type Restart struct {
	BackoffInitial time.Duration // default 10s
	BackoffMax     time.Duration // default 10m
	GiveUpAfter    int           // default 5; 0 = never give up
	RetryGivenUp   time.Duration // default 1h; 0 = by hand only
	// LoopRestarts and LoopWindow name a crash loop: once the watchdog has
	// started the service LoopRestarts times within LoopWindow, the next
	// time it finds the service down counts as a failed start (backoff,
	// give_up_after) instead of yet another restart. 0 = no limit.
	LoopRestarts int           // default 5
	LoopWindow   time.Duration // default 2m
}

// Job is one [[job]] table.
type Job struct {
	Name       string
	Schedule   string // 5 fields or @descriptor
	Timezone   string // as written: an IANA name or "Local"
	Location   *time.Location
	Command    []string
	Dir        string
	SearchPath []string          // as for a service
	Env        map[string]string // env_file overlaid by env, as for a service
	EnvFile    string
	EnvKeys    []string // as for a service
	RunAs      RunAs
	LogMax     int64         // caps last.log; default 50MiB
	Timeout    time.Duration // default 1h
	CatchUp    bool
	Grace      time.Duration // default 5m
	External   bool
	Depends    []Depend
	Ping       string // healthchecks-style URL: URL/start, URL, URL/fail; "" = none; a secret
	PingFile   string // the file Ping was read from (ping_file); "" when written in the config
}

// Notify is one [[notify]] table: a channel events are delivered through.
// URL, Secret and Token are secrets: print them only through Redacted.
type Notify struct {
	Name        string
	Kind        string        // one of NotifyKinds
	URL         string        // webhook, ntfy, healthchecks
	On          []string      // event kinds this channel gets; every kind when left out
	MinInterval time.Duration // per subject: at most one message this often; default 5m; 0 = no limit
	Secret      string        // webhook: HMAC-SHA256 key for X-Svcctl-Signature; "" = unsigned
	Token       string        // ntfy: access token (Authorization: Bearer)
	Priority    string        // ntfy: priority of ordinary events (min | low | default | high | urgent)
	Tags        []string      // ntfy: tags added to every message
	Command     []string      // command: argv; the event arrives as JSON on stdin
	RunAs       RunAs         // command: who it runs as (user, group), as a service's `user`; zero = the agent's user
	Timeout     time.Duration // one delivery attempt; default 10s
	// URLFile, SecretFile and TokenFile are the files URL, Secret and Token
	// were read from (absolute paths; "" when written in the config): a
	// secret kept out of a config that others may read.
	URLFile, SecretFile, TokenFile string
	OTLP                           OTLP // kind otlp only
	// Keys are the keys of a kind its own file registers
	// (RegisterNotifyKind): a pointer to that kind's Keys struct, decoded,
	// defaulted, its paths absolute and its secret files read. nil for the
	// kinds raw.go declares.
	Keys any
}

// OTLP is what an otlp channel reads besides url and on.
type OTLP struct {
	// Headers and FileHeaders are sent with every request: those written in
	// `headers`, and those read from headers_file ("Name: value" lines); no
	// name is in both. Every value is a secret.
	Headers, FileHeaders map[string]string
	HeadersFile          string // absolute; "" = none
	// CAFile, CertFile and KeyFile: the collector's CA (instead of the
	// system's) and this agent's client certificate for mTLS. Absolute.
	CAFile, CertFile, KeyFile string
	Gzip                      bool          // default true
	Encoding                  string        // protobuf (default) | json
	Rows                      string        // notable (default) | all | none
	MetricsEvery              time.Duration // default 60s; 0 = no metrics
	// ResourceAttributes are added to the resource of everything sent
	// (deployment.environment, team, ...); they cannot replace the ones
	// svc-ctl sets.
	ResourceAttributes map[string]string
}

// OTLP encodings and row selections.
const (
	OTLPProtobuf    = "protobuf"
	OTLPJSON        = "json"
	OTLPRowsNotable = "notable"
	OTLPRowsAll     = "all"
	OTLPRowsNone    = "none"
)

// Wants reports whether the channel takes events of kind k.
func (n *Notify) Wants(k string) bool {
	if len(n.On) == 0 {
		return true
	}
	for _, o := range n.On {
		if o == k {
			return true
		}
	}
	return false
}

// Event kinds: the closed list a [[notify]] `on` accepts (docs/notifications.md,
// "Events"). Package notify raises exactly these.
const (
	EventServiceDown      = "service.down"
	EventServiceGivenUp   = "service.given-up"
	EventServiceRecovered = "service.recovered"
	EventJobFailed        = "job.failed"
	EventJobRecovered     = "job.recovered"
	EventJobSkipped       = "job.skipped"
	EventJobMissing       = "job.missing"
	EventAgent            = "agent"
)

// EventKinds lists every event kind, in the order documentation shows them.
var EventKinds = []string{EventServiceDown, EventServiceGivenUp, EventServiceRecovered,
	EventJobFailed, EventJobRecovered, EventJobSkipped, EventJobMissing, EventAgent}

// Notification channel kinds.
const (
	NotifyWebhook      = "webhook"
	NotifyNtfy         = "ntfy"
	NotifyHealthchecks = "healthchecks"
	NotifyDesktop      = "desktop"
	NotifyCommand      = "command"
	NotifyOTLP         = "otlp"
)

// NotifyKinds lists every channel kind a [[notify]] `kind` accepts, in the
// order documentation shows them (raw.go: the kind key's enum). Package
// notify opens exactly these.
var NotifyKinds = kindNames(typeRawNotify)

// HealthChecks are the keys of [service.health] that name a check (each a
// key of its own, several may be set): not kinds, and not the dependency
// kinds of a depends entry (DependKinds).
var HealthChecks = func() []string {
	var out []string
	for i := range typeRawHealth.NumField() {
		if f := typeRawHealth.Field(i); f.Tag.Get("check") == "true" {
			out = append(out, tomlName(f))
		}
	}
	return out
}()

// NotifyChannel returns the [[notify]] channel with the given name, or nil.
func (c *Config) NotifyChannel(name string) *Notify {
	for i := range c.Notify {
		if c.Notify[i].Name == name {
			return &c.Notify[i]
		}
	}
	return nil
}

// Service returns the service with the given name, or nil.
func (c *Config) Service(name string) *Service {
	for i := range c.Services {
		if c.Services[i].Name == name {
			return &c.Services[i]
		}
	}
	return nil
}

// Job returns the job with the given name, or nil.
func (c *Config) Job(name string) *Job {
	for i := range c.Jobs {
		if c.Jobs[i].Name == name {
			return &c.Jobs[i]
		}
	}
	return nil
}

// EnvValues returns every env (and env_file) value of every service and
// job: what a redactor built for this configuration must hide
// (redact.New(cfg.EnvValues()...)).
func (c *Config) EnvValues() []string {
	var out []string
	for i := range c.Services {
		for _, v := range c.Services[i].Env {
			out = append(out, v)
		}
	}
	for i := range c.Jobs {
		for _, v := range c.Jobs[i].Env {
			out = append(out, v)
		}
	}
	return out
}

// SecretValues is every value of a key raw.go tags secret (each env and
// env_file value, every ping URL, each [[notify]] channel's url, secret,
// token and header, a registered kind's secret keys), found by the schema
// walk the printed view makes (secretValues), plus the headers an otlp
// channel read from its headers_file. A redactor for everything the agent
// writes is redact.New(cfg.SecretValues()...).
func (c *Config) SecretValues() []string {
	var out []string
	add := func(vs ...string) {
		for _, v := range vs {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	secretValues(viewOf(typeRawAgent, reflect.TypeFor[Agent](), ""), reflect.ValueOf(c.Agent), add)
	for i := range c.Services {
		secretValues(viewOf(typeRawService, reflect.TypeFor[Service](), ""), reflect.ValueOf(c.Services[i]), add)
	}
	for i := range c.Jobs {
		secretValues(viewOf(typeRawJob, reflect.TypeFor[Job](), ""), reflect.ValueOf(c.Jobs[i]), add)
	}
	for i := range c.Notify {
		n := &c.Notify[i]
		secretValues(viewOf(typeRawNotify, reflect.TypeFor[Notify](), n.Kind), reflect.ValueOf(*n), add)
		for _, v := range n.OTLP.FileHeaders {
			add(v)
		}
	}
	for _, keys := range c.extKeys() {
		extValues(keys, "secret", func(_ reflect.StructField, vs []string) { add(vs...) })
	}
	return out
}
