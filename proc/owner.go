package proc

import (
	"svcctl/internal/child"
	"svcctl/internal/svcname"
)

// owner is the OS seam of Spawn: what makes the new process the leader of a
// tree svc-ctl owns (a session, a cgroup, a job object).
type owner interface {
	start(newCmd func() *child.Cmd) (*child.Cmd, error) // start the leader inside the tree's owner
	cgroup() string                                     // the instance cgroup, "" if none
	job() string                                        // the job object's name, "" if none
	notes() []string                                    // where ownership is weaker than asked
	abandon()                                           // undo after a failed start
	close()                                             // release what Spawn held open
}

func nameOf(s SpawnSpec) string {
	if svcname.Valid(s.Name) { // what Spawn accepts as a name: one the config allows
		return s.Name
	}
	return "service"
}
