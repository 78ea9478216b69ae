package agent

import (
	"context"

	"svcctl/agent/scope"
	"svcctl/internal/child"
	"svcctl/proc"
)

// How the agent owns the trees of the instances it starts (docs/architecture.md, "What an
// instance is"): a cgroup of their own, a transient scope, or the subreaper.

// cgroup is where instances get cgroups of their own: the option, else the
// agent's own cgroup when systemd delegated it (Delegate=yes in the unit
// svc-ctl installs). Without one a tree is owned by its session only, and a
// service that daemonizes out of it cannot be stopped: the log says so once.
func (a *Agent) cgroup() string {
	switch a.o.Cgroup {
	case "-":
		return ""
	case "":
	default:
		return a.o.Cgroup
	}
	dir, ok, why := proc.DelegatedCgroup()
	if ok {
		a.log.Info("cgroup.delegated", "cgroup", dir)
		return dir
	}
	if a.o.Scope && a.scope == "" {
		sdir, err := scope.MoveSelf(context.Background())
		if err == nil {
			a.scope = sdir
			a.log.Info("cgroup.scope", "cgroup", sdir, "why", why)
			return sdir
		}
		a.log.Info("cgroup.no_scope", "why", err.Error())
	}
	a.log.Info("cgroup.none", "why", why)
	return ""
}

// becomeSubreaper makes the agent a child subreaper where the OS has them
// (Linux) and the options allow: a daemon that double-forks out of a
// service's tree is then re-parented to the agent, not to init, so its exit
// reaches the agent and its zombie is the agent's to reap (the orphans
// loop). Elsewhere instances are owned without it ("plain").
func (a *Agent) becomeSubreaper() bool {
	if a.o.NoSubreaper {
		a.log.Info("subreaper.off", "why", "the agent's options")
		return false
	}
	if err := child.Subreaper(); err != nil {
		a.log.Info("subreaper.none", "why", err.Error())
		return false
	}
	a.log.Info("subreaper.on")
	return true
}
