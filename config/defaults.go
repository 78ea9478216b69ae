package config

import "reflect"

// Defaults, as raw.go's default tags declare them (the one place, which
// TestDocsMatchSchema holds docs/configuration.md to). They are written as
// the person would write them, and go through the same ParseDuration as the
// file, so the documentation and the code cannot drift apart in units.
var (
	typeRawAgent   = reflect.TypeFor[rawAgent]()
	typeRawService = reflect.TypeFor[rawService]()
	typeRawHealth  = reflect.TypeFor[rawHealth]()
	typeRawRestart = reflect.TypeFor[rawRestart]()
	typeRawLimits  = reflect.TypeFor[rawLimits]()
	typeRawJob     = reflect.TypeFor[rawJob]()

	defaultLogLevel        = defaultOf(typeRawAgent, "log_level")
	defaultRetention       = defaultOf(typeRawAgent, "retention")
	defaultDrainTimeout    = defaultOf(typeRawAgent, "drain_timeout")
	defaultOnPanic         = defaultOf(typeRawAgent, "on_panic")
	defaultHeartbeat       = defaultOf(typeRawAgent, "heartbeat")
	defaultAgentPingEvery  = defaultOf(typeRawAgent, "ping_every")
	defaultLogDestinations = defaultList(typeRawAgent, "log_destinations")

	defaultInterval     = defaultOf(typeRawService, "interval")
	defaultStartTimeout = defaultOf(typeRawService, "start_timeout")
	defaultStopTimeout  = defaultOf(typeRawService, "stop_timeout")
	defaultKillMode     = defaultOf(typeRawService, "kill_mode")
	defaultLogMax       = defaultOf(typeRawService, "log_max")

	defaultHealthTimeout = defaultOf(typeRawHealth, "timeout")
	defaultHealthConfirm = defaultOf(typeRawHealth, "confirm")

	defaultBackoffInitial = defaultOf(typeRawRestart, "backoff_initial")
	defaultBackoffMax     = defaultOf(typeRawRestart, "backoff_max")
	defaultGiveUpAfter    = defaultInt(typeRawRestart, "give_up_after")
	defaultRetryGivenUp   = defaultOf(typeRawRestart, "retry_given_up")
	defaultLoopRestarts   = defaultInt(typeRawRestart, "loop_restarts")
	defaultLoopWindow     = defaultOf(typeRawRestart, "loop_window")

	defaultLimitFor = defaultOf(typeRawLimits, "for")

	defaultJobTimeout = defaultOf(typeRawJob, "timeout")
	defaultJobGrace   = defaultOf(typeRawJob, "grace")
	defaultJobLogMax  = defaultOf(typeRawJob, "log_max")

	defaultDependTimeout = defaultOf(typeRawDepend, "timeout")

	defaultNotifyMinInterval = defaultOf(typeRawNotify, "min_interval")
	defaultNotifyTimeout     = defaultOf(typeRawNotify, "timeout")
	defaultNtfyPriority      = defaultOf(typeRawNotify, "priority")
	defaultOTLPEncoding      = defaultOf(typeRawNotify, "encoding")
	defaultOTLPRows          = defaultOf(typeRawNotify, "rows")
	defaultOTLPGzip          = defaultBool(typeRawNotify, "gzip")
	defaultOTLPMetricsEvery  = defaultOf(typeRawNotify, "metrics_every")
)

// Bounds checked during validation.
const (
	minInterval  = "1s"
	minRetention = "1h"
	minLogMax    = "4KiB" // smaller would rotate on every few lines
	// minLimitMemory: a smaller memory limit is below any real process's
	// resident set; it would restart the service at every sample.
	minLimitMemory = "1MiB"
	// minPingEvery: hosted healthchecks rate-limit, and each ping is an
	// HTTPS request of the agent's.
	minPingEvery = "1m"
	// minMetricsEvery: every export is a request; a collector needs no
	// more than this for counters.
	minMetricsEvery = "10s"
)
