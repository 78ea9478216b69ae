//go:build !unix && !windows

package proc

import (
	"errors"
	"fmt"
	"runtime"

	"svcctl/internal/child"
)

// Here there is no session, cgroup or job: the tree is the leader alone,
// and it cannot be signalled by svc-ctl.

type plainOwner struct{}

func prepareOwner(SpawnSpec) (owner, error) { return plainOwner{}, nil }

func (plainOwner) start(newCmd func() *child.Cmd) (*child.Cmd, error) {
	cmd := newCmd()
	return cmd, cmd.Start()
}
func (plainOwner) cgroup() string  { return "" }
func (plainOwner) job() string     { return "" }
func (plainOwner) notes() []string { return []string{"no tree ownership on " + runtime.GOOS} }
func (plainOwner) abandon()        {}
func (plainOwner) close()          {}

func containerPIDs(Instance) ([]int32, string, error) { return nil, "", nil }

func walkable() bool { return false }

func ownSession(int32) bool { return false }

func newKiller(Instance) (killer, error) {
	return nil, fmt.Errorf("stop on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func releaseTree(Instance) {}
