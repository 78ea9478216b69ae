package config

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// services validates every [[service]]; names are unique among services.
func (c *checker) services(raws []rawService, stateDir string) []Service {
	seen := map[string]int{}
	out := make([]Service, 0, len(raws))
	for i := range raws {
		p := indexKey("service", i)
		c.name(p, raws[i].Name, seen)
		out = append(out, c.service(p, &raws[i], stateDir))
	}
	return out
}

func (c *checker) service(p string, r *rawService, stateDir string) Service {
	c.command(p+".command", r.Command, "")
	envFile := c.path(p+".env_file", r.EnvFile)
	s := Service{
		Name:         r.Name,
		Command:      r.Command,
		Dir:          c.path(p+".dir", r.Dir),
		SearchPath:   c.searchPath(p+".search_path", r.SearchPath),
		EnvKeys:      sortedKeys(r.Env),
		Env:          c.envFile(p+".env_file", envFile, c.env(p+".env", r.Env)),
		EnvFile:      envFile,
		RunAs:        c.runAs(p, r.User, r.Group),
		Log:          c.path(p+".log", r.Log),
		LogMax:       c.size(p+".log_max", r.LogMax, defaultLogMax, minLogMax),
		Interval:     c.atLeast(p+".interval", r.Interval, defaultInterval, minInterval),
		StartTimeout: c.positive(p+".start_timeout", r.StartTimeout, defaultStartTimeout),
		StopTimeout:  c.positive(p+".stop_timeout", r.StopTimeout, defaultStopTimeout),
		Health:       c.health(p, &r.Health),
		Depends:      c.depends(p+".depends", r.Depends),
		Restart:      c.restart(p+".restart", &r.Restart),
		Limits:       c.limits(p+".limits", &r.Limits),
	}
	c.stop(p, r, &s)
	s.Ping, s.PingFile = c.pingKeys(p, r.Ping, r.PingFile)
	if s.Log == "" {
		s.Log = filepath.Join(stateDir, "services", r.Name, "runtime.log")
	}
	s.Log = Canonical(s.Log)
	return s
}

// health validates [service.health] of the service at p.
func (c *checker) health(p string, r *rawHealth) Health {
	hp := p + ".health"
	if r.TCP == "" && r.HTTP == "" && len(r.Exec) == 0 {
		// Named after the service, on the line of its health table if any.
		c.doc.fail(p, c.doc.line(hp), "no health check: set at least one of %s", orList(prefixed("health.", HealthChecks)))
	}
	if r.TCP != "" {
		c.hostPort(hp+".tcp", r.TCP, "127.0.0.1:8789", false)
	}
	if r.HTTP != "" {
		c.httpURL(hp+".http", r.HTTP, false)
	}
	c.httpOnly(hp, r)
	c.expectStatus(hp+".expect_status", r.ExpectStatus)
	if _, err := regexp.Compile(r.ExpectBody); err != nil {
		c.fail(hp+".expect_body", "invalid regexp %q: %v", r.ExpectBody, err)
	}
	if len(r.Exec) > 0 {
		c.command(hp+".exec", r.Exec, "")
	}
	return Health{
		TCP:          r.TCP,
		HTTP:         r.HTTP,
		ExpectStatus: r.ExpectStatus,
		ExpectBody:   r.ExpectBody,
		Timeout:      c.positive(hp+".timeout", r.Timeout, defaultHealthTimeout),
		Confirm:      c.nonNegative(hp+".confirm", r.Confirm, defaultHealthConfirm),
		Exec:         r.Exec,
	}
}

// httpOnly refuses expect_status and expect_body without an http check:
// they would silently check nothing.
func (c *checker) httpOnly(hp string, r *rawHealth) {
	if r.HTTP != "" {
		return
	}
	for _, k := range []string{"expect_status", "expect_body"} {
		if c.doc.has(hp + "." + k) {
			c.fail(hp+"."+k, "only used by an http check: set health.http, or remove it")
		}
	}
}

// restart validates [service.restart].
func (c *checker) restart(p string, r *rawRestart) Restart {
	out := Restart{
		BackoffInitial: c.nonNegative(p+".backoff_initial", r.BackoffInitial, defaultBackoffInitial),
		BackoffMax:     c.nonNegative(p+".backoff_max", r.BackoffMax, defaultBackoffMax),
		GiveUpAfter:    defaultGiveUpAfter,
		RetryGivenUp:   c.nonNegative(p+".retry_given_up", r.RetryGivenUp, defaultRetryGivenUp),
		LoopRestarts:   defaultLoopRestarts,
		LoopWindow:     c.nonNegative(p+".loop_window", r.LoopWindow, defaultLoopWindow),
	}
	if r.LoopRestarts != nil {
		out.LoopRestarts = *r.LoopRestarts
	}
	if out.LoopRestarts < 0 {
		c.fail(p+".loop_restarts", "%d is negative: use 0 (no crash-loop limit) or a count of restarts", out.LoopRestarts)
	}
	// (A loop_window that did not parse has its own error; only one written
	// as zero is this one.)
	if out.LoopRestarts > 0 && r.LoopWindow != nil && writtenZero(*r.LoopWindow) {
		c.fail(p+".loop_window", "a crash loop needs a window to count restarts in: set a duration such as \"2m\", or loop_restarts = 0 to turn the limit off")
	}
	if out.BackoffInitial > out.BackoffMax {
		key := p + ".backoff_initial"
		if r.BackoffInitial == nil {
			key = p + ".backoff_max"
		}
		c.fail(key, "backoff_initial %q is longer than backoff_max %q: the first wait cannot exceed the longest",
			FormatDuration(out.BackoffInitial), FormatDuration(out.BackoffMax))
	}
	if r.GiveUpAfter != nil {
		out.GiveUpAfter = *r.GiveUpAfter
	}
	if out.GiveUpAfter < 0 {
		c.fail(p+".give_up_after", "%d is negative: use 0 (never give up) or a count of failed starts", out.GiveUpAfter)
	}
	return out
}

// limits validates [service.limits]: a memory size, a CPU percentage of
// one core ("90%", "250%" for two and a half cores), and how long the tree
// may stay over either.
func (c *checker) limits(p string, r *rawLimits) Limits {
	var out Limits
	if r.Memory != nil {
		out.Memory = c.size(p+".memory", r.Memory, "", minLimitMemory)
	}
	if r.CPU != nil {
		out.CPU = c.percent(p+".cpu", *r.CPU)
	}
	switch {
	case r.Memory != nil || r.CPU != nil:
		out.For = c.nonNegative(p+".for", r.For, defaultLimitFor)
	case r.For != nil:
		c.fail(p+".for", "no limit to hold for: set memory = \"500MiB\" or cpu = \"90%%\" too, or remove it")
	}
	return out
}

// percent parses a CPU limit: a positive number of percent of one core.
func (c *checker) percent(path, v string) float64 {
	num, ok := strings.CutSuffix(strings.TrimSpace(v), "%")
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || n <= 0 || n > 100000 || math.IsNaN(n) {
		c.fail(path, "invalid CPU limit %q: use a percentage of one core like \"90%%\" (\"250%%\" is two and a half cores)", v)
		return 0
	}
	return n
}

// writtenZero reports whether a duration as written parses to zero (one
// that does not parse has an error of its own).
func writtenZero(v durationText) bool {
	d, err := ParseDuration(string(v))
	return err == nil && d == 0
}
