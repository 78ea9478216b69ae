package watchdog

import (
	"context"
	"fmt"

	"svcctl/probe"
	"svcctl/proc"
)

// A stranger on the health port: a service svc-ctl started
// has died, and another process — another user's, on a shared workstation —
// now listens on its port and answers its health check. Certified healthy,
// it would get the service's clients and svc-ctl would never start the real
// one. So a passing probe is the service's own only when the service serves
// it:
//
//   - the rule applies when the health check is a local port (a loopback or
//     unspecified address in `tcp` or `http`), the port the service itself
//     should serve. A check of another host, or an exec check, judges
//     something the service does not own by design (an upstream, a
//     script), and is taken as it is;
//   - and when a record of the service's instance exists (a pid file: svc-ctl
//     started it) of which no process lives. A service svc-ctl never started
//     (no record: adopted by design) is not judged, nor one whose instance
//     lives (its own process may well be the one that answers).
//
// Then whoever holds the port is not this service: a member would have been
// found (the marker in its environment, its session, the record). The verdict is that of the existing "port held after
// the stop" path: the cycle goes on as for an unhealthy service (snapshot,
// the old instance is gone, the port is taken) and ends failed/start-failed
// naming the holder, which is never signalled; backoff and given-up count
// it as any failed start.

// stranger returns who answers the health check in this service's place, or
// nil when the service's own instance may (see above). It is also where a
// healthy cycle looks at its instance's members: a Walk down from the ones
// known, remembered in the record when they changed.
func (c *cycle) stranger(ctx context.Context) *PortHolder {
	t, inst, err := c.members(proc.Walk)
	if err != nil || t.Len() > 0 {
		return nil // none recorded (or unreadable): nothing to judge against; or its members live
	}
	_, port, ok := healthPort(c.svc.Health)
	if !ok {
		return nil
	}
	// The walk found nothing: a look with every proof (the marker, the
	// sessions) before anyone is called a stranger.
	if t, _, err := c.s.lookAt(c.svc, inst, proc.Scan, true); err != nil || t.Len() > 0 {
		return nil
	}
	return holderOf(ctx, port, nil)
}

// answeredByStranger turns a passing probe into a failed one: h answers,
// not this service. The cycle then runs as for an unhealthy service.
func (c *cycle) answeredByStranger(h *PortHolder) {
	c.notOurs = h
	c.res.Detail.PortHolder = h
	c.st.AnsweredBy = h.String()
	c.log.Warn("service.port_stranger", "port", h.Port, "holder_pid", h.PID, "holder_exe", h.Exe, "holder_user", h.User)
}

// healthWords is the health verdict in words: the probe's, and, when a
// stranger answered it, who.
func (c *cycle) healthWords() string {
	s := probe.Summary(c.lastProbe())
	if c.notOurs != nil {
		s += ", but " + c.notOurs.String()
	}
	return s
}

// strangerMessage is the start-failed message of a cycle whose probe a
// stranger answered.
func (c *cycle) strangerMessage(h *PortHolder, leader int32) string {
	return fmt.Sprintf("start-failed: the health check passes (%s), but %s, and no process of this service's instance "+
		"(started as pid %d) is left: not certified healthy, not signalled, no new instance spawned; "+
		"stop that process (or give this service another port), then `svc-ctl start %s`",
		probe.Summary(c.lastProbe()), h, leader, c.svc.Name)
}
