package proc

import (
	"regexp"

	"svcctl/internal/child"
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

// instanceName is what Spawn accepts as SpawnSpec.Name (a service or job
// name as the config allows it).
var instanceName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

func nameOf(s SpawnSpec) string {
	if instanceName.MatchString(s.Name) {
		return s.Name
	}
	return "service"
}
