package config

// The raw structs mirror the TOML file one to one, and they are the schema:
// each key is declared here once, its name, type, default, doc line, whether
// it is a secret, and which kinds accept it, in its field's tags. What the
// rest of the package knows of keys is derived from these tags by
// reflection (schema.go): the decoder's strict key and type check, the
// defaults (defaults.go), each kind's keys, the printed view of every
// table (view.go), and TestDocsMatchSchema holds docs/configuration.md's
// tables to them. docs/design/config.md says why reflection.
//
// Tags, besides toml (the key's name):
//
//	default:"40d"   the default, as written in the file (a string without
//	                its quotes, a list comma-separated); absent: the type's
//	                zero value, or one the code computes (docs say which)
//	doc:"..."       one line for a person (the docs' table says the rest)
//	type:"path"     what the docs call the type, where the Go type says too
//	                little ("path", "list of paths")
//	secret:"true"   the value is a secret: never logged or printed (for a
//	                table of strings, each value)
//	kinds:"a,b"     in a table with a kind key, the kinds that accept it;
//	                absent: every kind
//	enum:"a,b"      the kind key itself: the kinds, in the docs' order
//	check:"true"    in [service.health], a key that names a health check
//	show, view, file how `config check` prints the key: only when set
//	                (show:"set", "set-in-toml", "if=KEY"), a URL by its host
//	                (view:"host"), an argv redacted (view:"argv"), a value
//	                read from file KEY shown as that file (file:"KEY"); the
//	                list is in view.go
//
// Every field that has a default is a pointer, so "left out" (nil: take the
// default) and "written out" (even as zero, e.g. give_up_after = 0 or
// confirm = "0s") stay distinct; go-toml allocates [[service]] and [[job]]
// elements itself, so defaults cannot be written into them before decoding.
// Durations are strings here and are parsed by ParseDuration during
// validation.

// durationText is a duration as written in the file ("10m", "40d"). Its own
// type lets the schema check say "want a duration" instead of "want a string".
type durationText string

// sizeText is a size as written ("50MiB"), parsed by ParseSize.
type sizeText string

type rawFile struct {
	Include []string     `toml:"include" doc:"more files whose service, job and notify tables are added"`
	Agent   rawAgent     `toml:"agent"`
	Service []rawService `toml:"service"`
	Job     []rawJob     `toml:"job"`
	Notify  []rawNotify  `toml:"notify"`
}

type rawAgent struct {
	StateDir        *string       `toml:"state_dir" type:"path" doc:"where the ledger, state and logs live; default per OS"`
	LogLevel        *string       `toml:"log_level" default:"info" doc:"debug, info, warn or error"`
	Retention       *durationText `toml:"retention" default:"40d" doc:"run_trace rows older than this are pruned daily"`
	DrainTimeout    *durationText `toml:"drain_timeout" default:"30s" doc:"how long in-flight runs may finish on stop"`
	OnPanic         *string       `toml:"on_panic" default:"continue" doc:"continue or exit after a recovered panic"`
	Heartbeat       *durationText `toml:"heartbeat" default:"30s" doc:"how often the agent renews its heartbeat row"`
	MetricsListen   *string       `toml:"metrics_listen" doc:"host:port for Prometheus /metrics and /healthz; empty: off"`
	Ping            string        `toml:"ping" secret:"true" doc:"the agent's own dead man's switch: a healthchecks-style URL" show:"set" view:"host" file:"ping_file"`
	PingFile        string        `toml:"ping_file" type:"path" doc:"instead of ping: a file holding the URL" show:"set"`
	PingEvery       *durationText `toml:"ping_every" default:"5m" doc:"how often the agent pings, at least 1m" show:"if=ping"`
	LogDestinations []string      `toml:"log_destinations" default:"file" doc:"where agent.log's lines go: file, journal, eventlog"`
}

type rawService struct {
	Name         string            `toml:"name" doc:"the service's name"`
	Command      []string          `toml:"command" doc:"argv, never run by a shell" view:"argv"`
	Dir          string            `toml:"dir" type:"path" doc:"working directory; empty: the home of the user it runs as"`
	SearchPath   []string          `toml:"search_path" type:"list of paths" doc:"directories put before the base PATH" show:"set"`
	Env          map[string]string `toml:"env" secret:"true" doc:"extra environment; values never logged or printed" show:"set-in-toml"`
	EnvFile      string            `toml:"env_file" type:"path" doc:"a dotenv file of variables, its values secrets like env's"`
	User         string            `toml:"user" doc:"the user the service runs as"`
	Group        string            `toml:"group" doc:"the group the service runs as"`
	Log          string            `toml:"log" type:"path" doc:"where stdout and stderr go; default in the state dir"`
	LogMax       *sizeText         `toml:"log_max" default:"50MiB" doc:"the log is rotated past this size"`
	Interval     *durationText     `toml:"interval" default:"10m" doc:"the watchdog's period"`
	StartTimeout *durationText     `toml:"start_timeout" default:"8s" doc:"how long a fresh start may take to pass its health check"`
	StopTimeout  *durationText     `toml:"stop_timeout" default:"10s" doc:"how long a stop waits before killing"`
	StopSignal   string            `toml:"stop_signal" doc:"the signal a stop sends; empty: the OS's default" show:"set"`
	KillMode     string            `toml:"kill_mode" default:"tree" doc:"tree: the stop signal to every process; main: to the main process only"`
	StopCommand  []string          `toml:"stop_command" doc:"argv run first when the service is stopped" show:"set" view:"argv"`
	PidFile      string            `toml:"pid_file" type:"path" doc:"the file the service's daemon writes its pid to" show:"set"`
	Health       rawHealth         `toml:"health"`
	Depends      []rawDepend       `toml:"depends" show:"set-in-toml"`
	Restart      rawRestart        `toml:"restart"`
	Limits       rawLimits         `toml:"limits" show:"set"`
	Ping         string            `toml:"ping" secret:"true" doc:"a healthchecks-style URL pinged after every healthy cycle" show:"set" view:"host" file:"ping_file"`
	PingFile     string            `toml:"ping_file" type:"path" doc:"instead of ping: a file holding the URL" show:"set"`
}

type rawLimits struct {
	Memory *sizeText     `toml:"memory" doc:"resident memory of the whole tree; none by default" show:"set"`
	CPU    *string       `toml:"cpu" doc:"percent of one core, averaged over for; none by default" show:"set" view:"percent"`
	For    *durationText `toml:"for" default:"5m" doc:"how long the tree may stay over a limit"`
}

// rawHealth's keys tagged check are the health checks (HealthChecks): each
// a key of its own, several may be set; not kinds.
type rawHealth struct {
	TCP          string        `toml:"tcp" check:"true" doc:"host:port that must accept a connection" show:"set-in-toml"`
	HTTP         string        `toml:"http" check:"true" doc:"a URL that must answer" show:"set-in-toml" view:"redact"`
	ExpectStatus int           `toml:"expect_status" doc:"the status http must answer; 0: any 2xx" show:"set-in-toml"`
	ExpectBody   string        `toml:"expect_body" doc:"a regexp the body must match" show:"set-in-toml"`
	Timeout      *durationText `toml:"timeout" default:"2s" doc:"bounds the whole check"`
	Confirm      *durationText `toml:"confirm" default:"1s" doc:"pause before the second look at an unhealthy service"`
	Exec         []string      `toml:"exec" check:"true" doc:"argv of a command whose exit status 0 means healthy" show:"set-in-toml" view:"argv"`
}

type rawDepend struct {
	Kind         string        `toml:"kind" enum:"http,tcp,dns,file,cert" doc:"what kind of dependency"`
	URL          string        `toml:"url" kinds:"http,cert" doc:"http: a URL that must answer; cert: an https endpoint" show:"set" view:"redact"`
	Address      string        `toml:"address" kinds:"tcp" doc:"host:port that must accept a connection" show:"set"`
	Host         string        `toml:"host" kinds:"dns" doc:"a name that must resolve" show:"set"`
	Path         string        `toml:"path" type:"path" kinds:"file,cert" doc:"file: must exist; cert: a PEM certificate" show:"set"`
	MaxAge       *durationText `toml:"max_age" kinds:"file" doc:"the file must have been modified within this long" show:"set"`
	MinValid     *durationText `toml:"min_valid" kinds:"cert" doc:"the certificate must stay valid at least this long" show:"set"`
	ExpectStatus int           `toml:"expect_status" kinds:"http" doc:"the status the URL must answer; 0: any 2xx" show:"set"`
	Timeout      *durationText `toml:"timeout" default:"5s" doc:"bounds the check"`
}

type rawRestart struct {
	BackoffInitial *durationText `toml:"backoff_initial" default:"10s" doc:"the wait after the first failed start, doubling after each"`
	BackoffMax     *durationText `toml:"backoff_max" default:"10m" doc:"the longest wait"`
	GiveUpAfter    *int          `toml:"give_up_after" default:"5" doc:"failed starts in a row before the service is given up; 0: never"`
	RetryGivenUp   *durationText `toml:"retry_given_up" default:"1h" doc:"how often a given-up service gets one start try; 0s: by hand only"`
	LoopRestarts   *int          `toml:"loop_restarts" default:"5" doc:"starts within loop_window that make a crash loop; 0: no limit"`
	LoopWindow     *durationText `toml:"loop_window" default:"2m" doc:"the window the watchdog's starts are counted in"`
}

type rawJob struct {
	Name       string            `toml:"name" doc:"the job's name"`
	Schedule   string            `toml:"schedule" doc:"5 cron fields or a descriptor"`
	Timezone   string            `toml:"timezone" doc:"the zone the schedule is read in"`
	Command    []string          `toml:"command" doc:"argv, never run by a shell" view:"argv"`
	Dir        string            `toml:"dir" type:"path" doc:"working directory; empty: the home of the user it runs as"`
	SearchPath []string          `toml:"search_path" type:"list of paths" doc:"directories put before the base PATH" show:"set"`
	Env        map[string]string `toml:"env" secret:"true" doc:"extra environment; values never logged or printed" show:"set-in-toml"`
	EnvFile    string            `toml:"env_file" type:"path" doc:"a dotenv file of variables, its values secrets like env's"`
	User       string            `toml:"user" doc:"the user the command runs as"`
	Group      string            `toml:"group" doc:"the group the command runs as"`
	LogMax     *sizeText         `toml:"log_max" default:"50MiB" doc:"caps a run's last.log"`
	Timeout    *durationText     `toml:"timeout" default:"1h" doc:"a run still going after this is killed"`
	CatchUp    bool              `toml:"catch_up" doc:"slots missed while the agent was down run once on return"`
	Grace      *durationText     `toml:"grace" default:"5m" doc:"how late a slot may start before it counts as missing"`
	External   bool              `toml:"external" doc:"another scheduler runs the job through svc-ctl exec"`
	Depends    []rawDepend       `toml:"depends" show:"set-in-toml"`
	Ping       string            `toml:"ping" secret:"true" doc:"a healthchecks-style URL pinged at each run's start and end" show:"set" view:"host" file:"ping_file"`
	PingFile   string            `toml:"ping_file" type:"path" doc:"instead of ping: a file holding the URL" show:"set"`
}

type rawNotify struct {
	Name        string        `toml:"name" doc:"the channel's name"`
	Kind        string        `toml:"kind" enum:"webhook,ntfy,healthchecks,desktop,command,otlp" doc:"what kind of channel"`
	URL         string        `toml:"url" secret:"true" kinds:"webhook,ntfy,healthchecks,otlp" doc:"where events are sent" show:"set" view:"host" file:"url_file"`
	On          []string      `toml:"on" doc:"the event kinds this channel gets; every kind when left out" view:"events"`
	MinInterval *durationText `toml:"min_interval" default:"5m" kinds:"webhook,ntfy,healthchecks,desktop,command" doc:"per subject, at most one message this often"`
	Secret      string        `toml:"secret" secret:"true" kinds:"webhook" doc:"signs each POST with HMAC-SHA256" show:"set" file:"secret_file"`
	Token       string        `toml:"token" secret:"true" kinds:"ntfy" doc:"an access token, sent as a bearer" show:"set" file:"token_file"`
	URLFile     string        `toml:"url_file" type:"path" kinds:"webhook,ntfy,healthchecks,otlp" doc:"instead of url: a file holding it" show:"set"`
	SecretFile  string        `toml:"secret_file" type:"path" kinds:"webhook" doc:"instead of secret: a file holding it" show:"set"`
	TokenFile   string        `toml:"token_file" type:"path" kinds:"ntfy" doc:"instead of token: a file holding it" show:"set"`
	Priority    string        `toml:"priority" default:"default" kinds:"ntfy" doc:"the priority of ordinary events" show:"set"`
	Tags        []string      `toml:"tags" kinds:"ntfy" doc:"tags added to every message" show:"set"`
	Command     []string      `toml:"command" kinds:"command" doc:"argv; the event arrives as JSON on stdin" show:"set" view:"argv"`
	User        string        `toml:"user" kinds:"command" doc:"the user the command runs as" show:"set"`
	Group       string        `toml:"group" kinds:"command" doc:"the group the command runs as" show:"set"`
	Timeout     *durationText `toml:"timeout" default:"10s" doc:"one delivery attempt"`
	// otlp
	Headers            map[string]string `toml:"headers" secret:"true" kinds:"otlp" doc:"HTTP headers sent with every request" show:"set"`
	HeadersFile        string            `toml:"headers_file" type:"path" kinds:"otlp" doc:"more headers, one Name: value per line" show:"set"`
	CAFile             string            `toml:"ca_file" type:"path" kinds:"otlp" doc:"the collector's CA certificate instead of the system's" show:"set"`
	CertFile           string            `toml:"cert_file" type:"path" kinds:"otlp" doc:"this agent's client certificate for mTLS" show:"set"`
	KeyFile            string            `toml:"key_file" type:"path" kinds:"otlp" doc:"this agent's client key for mTLS" show:"set"`
	Gzip               *bool             `toml:"gzip" default:"true" kinds:"otlp" doc:"compress each request"`
	Encoding           string            `toml:"encoding" default:"protobuf" kinds:"otlp" doc:"protobuf or json"`
	Rows               string            `toml:"rows" default:"notable" kinds:"otlp" doc:"which run_trace rows are exported: notable, all or none"`
	MetricsEvery       *durationText     `toml:"metrics_every" default:"60s" kinds:"otlp" doc:"how often the counters are exported; 0s: never"`
	ResourceAttributes map[string]string `toml:"resource_attributes" kinds:"otlp" doc:"added to the resource of everything exported" show:"set"`
}
