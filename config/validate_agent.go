package config

// agent validates [agent] and applies its defaults.
func (c *checker) agent(r *rawAgent) Agent {
	a := Agent{
		LogLevel:      text(r.LogLevel, defaultLogLevel),
		Retention:     c.atLeast("agent.retention", r.Retention, defaultRetention, minRetention),
		DrainTimeout:  c.nonNegative("agent.drain_timeout", r.DrainTimeout, defaultDrainTimeout),
		OnPanic:       text(r.OnPanic, defaultOnPanic),
		Heartbeat:     c.positive("agent.heartbeat", r.Heartbeat, defaultHeartbeat),
		MetricsListen: text(r.MetricsListen, ""),
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
	return a
}
