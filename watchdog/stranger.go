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
// Then whoever holds the port is not this service, unless it is a process
// that left the instance while it started (Instance.Outside: a daemon that
// escaped its session). The verdict is that of the existing "port held after
// the stop" path: the cycle goes on as for an unhealthy service (snapshot,
// the old instance is gone, the port is taken) and ends failed/start-failed
// naming the holder, which is never signalled; backoff and given-up count
// it as any failed start.

// stranger returns who answers the health check in this service's place, or
// nil when the service's own instance may (see above).
func (c *cycle) stranger(ctx context.Context) *PortHolder {
	_, port, ok := healthPort(c.svc.Health)
	if !ok {
		return nil
	}
	inst, err := c.s.Instance(c.svc.Name)
	if err != nil {
		return nil // none recorded (or unreadable): nothing to judge against
	}
	// The common case first, one read of /proc/PID/stat: the leader runs.
	if alive, err := proc.Match(inst.Identity); alive || err != nil {
		return nil
	}
	t, err := proc.Members(inst)
	if err != nil || t.Len() > 0 {
		return nil // a launcher's tree lives on: it may be what answers
	}
	h := holderOf(ctx, port, nil)
	if escapee(inst, h) {
		return nil
	}
	return h
}

// escapee reports whether h is a process recorded as having left inst
// while it started, and still the same process.
func escapee(inst proc.Instance, h *PortHolder) bool {
	if h == nil || h.PID <= 0 {
		return false
	}
	for _, o := range inst.Outside {
		if o.PID == h.PID {
			if ok, _ := proc.Match(o); ok {
				return true
			}
		}
	}
	return false
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

// recordEscapee remembers, in the pid file, the process that serves the
// health port from outside the instance svc-ctl just started (a daemon that
// left its session): later cycles take it for this instance's server, not
// a stranger. Only a process that started after the instance's leader, in
// the same boot, can have come from it.
func (c *cycle) recordEscapee(child *proc.Child, h *PortHolder) {
	inst := child.Instance
	if h == nil || h.PID <= 0 || h.id.PID != h.PID || h.id.Start == 0 ||
		h.id.Boot != inst.Boot || h.id.Start < inst.Start {
		return
	}
	inst.Outside = append(inst.Outside, h.id)
	child.Instance = inst
	c.s.savePid(c.svc.Name, inst)
}
