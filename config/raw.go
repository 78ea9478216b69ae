package config

// The raw structs mirror the TOML file one to one. Every field that has a
// default is a pointer, so "left out" (nil: take the default) and "written
// out" (even as zero, e.g. give_up_after = 0 or confirm = "0s") stay
// distinct; go-toml allocates [[service]] and [[job]] elements itself, so
// defaults cannot be written into them before decoding. Durations are
// strings here and are parsed by ParseDuration during validation.

// durationText is a duration as written in the file ("10m", "40d"). Its own
// type lets the schema check say "want a duration" instead of "want a string".
type durationText string

// sizeText is a size as written ("50MiB"), parsed by ParseSize.
type sizeText string

type rawFile struct {
	Include []string     `toml:"include"`
	Agent   rawAgent     `toml:"agent"`
	Service []rawService `toml:"service"`
	Job     []rawJob     `toml:"job"`
	Notify  []rawNotify  `toml:"notify"`
}

type rawAgent struct {
	StateDir      *string       `toml:"state_dir"`
	LogLevel      *string       `toml:"log_level"`
	Retention     *durationText `toml:"retention"`
	DrainTimeout  *durationText `toml:"drain_timeout"`
	OnPanic       *string       `toml:"on_panic"`
	Heartbeat     *durationText `toml:"heartbeat"`
	MetricsListen *string       `toml:"metrics_listen"`
	// Ping is the agent's own dead man's switch (a healthchecks-style URL).
	Ping            string        `toml:"ping"`
	PingFile        string        `toml:"ping_file"`
	PingEvery       *durationText `toml:"ping_every"`
	LogDestinations []string      `toml:"log_destinations"`
}

type rawService struct {
	Name         string            `toml:"name"`
	Command      []string          `toml:"command"`
	Dir          string            `toml:"dir"`
	SearchPath   []string          `toml:"search_path"`
	Env          map[string]string `toml:"env"`
	EnvFile      string            `toml:"env_file"`
	User         string            `toml:"user"`
	Group        string            `toml:"group"`
	Log          string            `toml:"log"`
	LogMax       *sizeText         `toml:"log_max"`
	Interval     *durationText     `toml:"interval"`
	StartTimeout *durationText     `toml:"start_timeout"`
	StopTimeout  *durationText     `toml:"stop_timeout"`
	Health       rawHealth         `toml:"health"`
	Depends      []rawDepend       `toml:"depends"`
	Restart      rawRestart        `toml:"restart"`
	Limits       rawLimits         `toml:"limits"`
	Ping         string            `toml:"ping"`
	PingFile     string            `toml:"ping_file"`
}

type rawLimits struct {
	Memory *sizeText     `toml:"memory"`
	CPU    *string       `toml:"cpu"`
	For    *durationText `toml:"for"`
}

type rawHealth struct {
	TCP          string        `toml:"tcp"`
	HTTP         string        `toml:"http"`
	ExpectStatus int           `toml:"expect_status"`
	ExpectBody   string        `toml:"expect_body"`
	Timeout      *durationText `toml:"timeout"`
	Confirm      *durationText `toml:"confirm"`
	Exec         []string      `toml:"exec"`
}

type rawDepend struct {
	Kind         string        `toml:"kind"`
	URL          string        `toml:"url"`
	Address      string        `toml:"address"`
	Host         string        `toml:"host"`
	Path         string        `toml:"path"`
	MaxAge       *durationText `toml:"max_age"`
	MinValid     *durationText `toml:"min_valid"`
	ExpectStatus int           `toml:"expect_status"`
	Timeout      *durationText `toml:"timeout"`
}

type rawRestart struct {
	BackoffInitial *durationText `toml:"backoff_initial"`
	BackoffMax     *durationText `toml:"backoff_max"`
	GiveUpAfter    *int          `toml:"give_up_after"`
	RetryGivenUp   *durationText `toml:"retry_given_up"`
	LoopRestarts   *int          `toml:"loop_restarts"`
	LoopWindow     *durationText `toml:"loop_window"`
}

type rawJob struct {
	Name       string            `toml:"name"`
	Schedule   string            `toml:"schedule"`
	Timezone   string            `toml:"timezone"`
	Command    []string          `toml:"command"`
	Dir        string            `toml:"dir"`
	SearchPath []string          `toml:"search_path"`
	Env        map[string]string `toml:"env"`
	EnvFile    string            `toml:"env_file"`
	User       string            `toml:"user"`
	Group      string            `toml:"group"`
	LogMax     *sizeText         `toml:"log_max"`
	Timeout    *durationText     `toml:"timeout"`
	CatchUp    bool              `toml:"catch_up"`
	Grace      *durationText     `toml:"grace"`
	External   bool              `toml:"external"`
	Depends    []rawDepend       `toml:"depends"`
	Ping       string            `toml:"ping"`
	PingFile   string            `toml:"ping_file"`
}

type rawNotify struct {
	Name        string        `toml:"name"`
	Kind        string        `toml:"kind"`
	URL         string        `toml:"url"`
	On          []string      `toml:"on"`
	MinInterval *durationText `toml:"min_interval"`
	Secret      string        `toml:"secret"`
	Token       string        `toml:"token"`
	URLFile     string        `toml:"url_file"`
	SecretFile  string        `toml:"secret_file"`
	TokenFile   string        `toml:"token_file"`
	Priority    string        `toml:"priority"`
	Tags        []string      `toml:"tags"`
	Command     []string      `toml:"command"`
	User        string        `toml:"user"`
	Group       string        `toml:"group"`
	Timeout     *durationText `toml:"timeout"`
	// otlp
	Headers            map[string]string `toml:"headers"`
	HeadersFile        string            `toml:"headers_file"`
	CAFile             string            `toml:"ca_file"`
	CertFile           string            `toml:"cert_file"`
	KeyFile            string            `toml:"key_file"`
	Gzip               *bool             `toml:"gzip"`
	Encoding           string            `toml:"encoding"`
	Rows               string            `toml:"rows"`
	MetricsEvery       *durationText     `toml:"metrics_every"`
	ResourceAttributes map[string]string `toml:"resource_attributes"`
}
