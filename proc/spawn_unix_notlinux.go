//go:build unix && !linux

package proc

import (
	"svcctl/internal/child"
	"svcctl/internal/runas"
)

// sessionOwner starts the leader in a session of its own (setsid): no
// controlling terminal, no tie to the agent, and the session id that owns
// its tree.
type sessionOwner struct{ runAs *runas.Identity }

func prepareOwner(s SpawnSpec) (owner, error) { return sessionOwner{runAs: s.RunAs}, nil }

func (o sessionOwner) start(newCmd func() *child.Cmd) (*child.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = sessionAttr(o.runAs)
	return cmd, cmd.Start()
}

func (sessionOwner) cgroup() string  { return "" }
func (sessionOwner) job() string     { return "" }
func (sessionOwner) notes() []string { return nil }
func (sessionOwner) abandon()        {}
func (sessionOwner) close()          {}
