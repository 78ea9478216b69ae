package watchdog

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"svcctl/probe"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// A cycle's look: the service's health checks, the second look before a
// restart is decided, and the checks of what it depends on.

// look probes health once; the probe timeout bounds the whole check.
func (c *cycle) look(ctx context.Context) []probe.Result {
	rs := probe.RunAll(ctx, c.stamp(probe.HealthSpecs(c.svc.Health, c.svc.Env, c.svc.Dir, c.svc.SearchPath)))
	c.st.LastProbe, c.st.LastProbeAt = rs, c.s.now()
	return rs
}

func (c *cycle) lastProbe() []probe.Result {
	if c.res.Detail.SecondLook != nil {
		return c.res.Detail.SecondLook
	}
	return c.res.Detail.Probe
}

// secondLook waits `confirm` and probes again: an independent second look, so
// one lost packet does not cost a restart. ok is false when there is none.
func (c *cycle) secondLook(ctx context.Context) ([]probe.Result, bool) {
	if c.req.SkipConfirm || c.svc.Health.Confirm <= 0 {
		return nil, false
	}
	// No process of the recorded instance is left, or nothing was ever
	// recorded nor seen healthy (a first start): that is the second look
	// (as on the agent's fast path), and waiting `confirm` would only
	// delay a start. A service svc-ctl adopted healthy keeps its confirm.
	inst, err := c.s.Instance(c.svc.Name)
	if errors.Is(err, fs.ErrNotExist) && c.st.InstanceHealthyAt.IsZero() {
		return nil, false
	}
	if err == nil {
		if t, err := proc.Members(inst); err == nil && t.Len() == 0 {
			return nil, false
		}
	}
	t := time.NewTimer(c.svc.Health.Confirm)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, false
	case <-t.C:
	}
	return c.look(ctx), true
}

func (c *cycle) healthy(ctx context.Context, flap bool) {
	now := c.s.now()
	wasGivenUp := c.st.State == state.GivenUp
	c.st.LastHealthy = now
	c.st.InstanceHealthyAt = now
	if c.stable(now) {
		c.st.Failures = 0
	}
	c.st.BackoffUntil = time.Time{}
	c.st.GivenUpAt = time.Time{}
	c.st.AnsweredBy = ""
	c.st.MoveTo(state.Healthy, "probe healthy", now)
	c.res.Detail.Flap = flap
	if rs := c.checkDepends(ctx); dependencyDown(rs) {
		c.dependencyFailed(rs)
		return
	}
	msg := "already-running"
	switch {
	case flap:
		msg = "already-running (unhealthy at first look, healthy at the second)"
	case wasGivenUp:
		msg = "already-running (answering again after given-up)"
	}
	c.set(runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning, msg)
}

// checkDepends probes the service's dependencies (none: nil) and keeps the
// results in the cycle's detail.
func (c *cycle) checkDepends(ctx context.Context) []probe.Result {
	if len(c.svc.Depends) == 0 {
		return nil
	}
	specs := make([]probe.Spec, 0, len(c.svc.Depends))
	for _, d := range c.svc.Depends {
		specs = append(specs, probe.DependSpec(d, c.svc.Env))
	}
	rs := probe.RunAll(ctx, c.stamp(specs))
	c.res.Detail.Depends = rs
	return rs
}

// dependencyDown reports whether a dependency check failed.
func dependencyDown(rs []probe.Result) bool { return len(rs) > 0 && !probe.Healthy(rs) }

// dependencyFailed is the verdict when one is down: failed/dependency-failed
// and no restart, since restarting cannot fix an upstream.
func (c *cycle) dependencyFailed(rs []probe.Result) {
	c.set(runtrace.OutcomeFailed, runtrace.ReasonDependencyFailed, "dependency-failed: "+probe.FirstFailure(rs))
}
