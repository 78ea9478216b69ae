package config

import "slices"

// agent validates [agent] and applies its defaults.
func (c *checker) agent(r *rawAgent) Agent {
	a := Agent{
		LogLevel:      text(r.LogLevel, defaultLogLevel),
		Retention:     c.atLeast("agent.retention", r.Retention, defaultRetention, minRetention),
		DrainTimeout:  c.nonNegative("agent.drain_timeout", r.DrainTimeout, defaultDrainTimeout),
		OnPanic:       text(r.OnPanic, defaultOnPanic),
		Heartbeat:     c.positive("agent.heartbeat", r.Heartbeat, defaultHeartbeat),
		MetricsListen: text(r.MetricsListen, ""),
		PingEvery:     c.atLeast("agent.ping_every", r.PingEvery, defaultAgentPingEvery, minPingEvery),
	}
	a.StateDir = c.path("agent.state_dir", text(r.StateDir, ""))
	if a.StateDir == "" {
		a.StateDir = DefaultStateDir(c.user)
	}
	a.StateDir = Canonical(a.StateDir)
	c.oneOf("agent.log_level", a.LogLevel, "debug", "info", "warn", "error")
	c.oneOf("agent.on_panic", a.OnPanic, "continue", "exit")
	if a.MetricsListen != "" {
		c.hostPort("agent.metrics_listen", a.MetricsListen, "127.0.0.1:9464", true)
	}
	a.Ping, a.PingFile = c.pingKeys("agent", r.Ping, r.PingFile)
	if r.PingEvery != nil && a.Ping == "" && r.PingFile == "" {
		c.fail("agent.ping_every", "no ping to send: set ping = \"https://hc-ping.com/UUID\" (or ping_file), or remove ping_every")
	}
	a.LogDestinations = c.logDestinations(r.LogDestinations)
	return a
}

// logDestinations checks [agent] log_destinations against what this OS
// has: journald on Linux, the Event Log on Windows (its source is
// registered by the system-wide install only), the file everywhere.
func (c *checker) logDestinations(ds []string) []string {
	if ds == nil {
		return slices.Clone(defaultLogDestinations)
	}
	if len(ds) == 0 {
		c.fail("agent.log_destinations", `no destination: the agent's log must go somewhere; use ["file"] (the default) and, on this OS, %s`, orList(osLogDestinations))
		return []string{LogFile}
	}
	seen := map[string]bool{}
	for i, d := range ds {
		key := indexKey("agent.log_destinations", i)
		switch {
		case seen[d]:
			c.fail(key, "%q is listed twice: keep one", d)
		case !slices.Contains([]string{LogFile, LogJournal, LogEventLog}, d):
			c.fail(key, "invalid value %q: use %s", d, orList(osLogDestinations))
		case !slices.Contains(osLogDestinations, d):
			c.fail(key, "%q is not on this OS (%s): use %s", d, osName, orList(osLogDestinations))
		case d == LogEventLog && c.user:
			c.fail(key, `"eventlog" needs the system agent: only the system-wide install registers the svc-ctl event source, `+
				`and a per-user agent cannot; use "file" here (the per-user agent's log is agent.log in its state dir)`)
		}
		seen[d] = true
	}
	return ds
}
