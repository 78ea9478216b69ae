package config

// Defaults, exactly as docs/configuration.md states them. They
// are written as the person would write them, and go through the same
// ParseDuration as the file, so the documentation and the code cannot drift
// apart in units.
const (
	defaultLogLevel     = "info"
	defaultRetention    = "40d"
	defaultDrainTimeout = "30s"
	defaultOnPanic      = "continue"
	defaultHeartbeat    = "30s"

	defaultInterval     = "10m"
	defaultStartTimeout = "8s"
	defaultStopTimeout  = "10s"

	defaultHealthTimeout = "2s"
	defaultHealthConfirm = "1s"

	defaultBackoffInitial = "10s"
	defaultBackoffMax     = "10m"
	defaultGiveUpAfter    = 5
	defaultRetryGivenUp   = "1h"
	defaultLoopRestarts   = 5
	defaultLoopWindow     = "2m"

	defaultJobTimeout = "1h"
	defaultJobGrace   = "5m"

	defaultDependTimeout = "5s"

	defaultNotifyMinInterval = "5m"
	defaultNotifyTimeout     = "10s"
	defaultLogMax            = "50MiB"

	defaultLimitFor = "5m"

	defaultAgentPingEvery   = "5m"
	defaultOTLPMetricsEvery = "60s"
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
