package proc

import "golang.org/x/sys/windows"

// containerPIDs lists the instance's job when it can be opened (none
// recorded, or its last handle closed: the tree is then the leader's
// descendants by parent links, which the look walks anyway).
func containerPIDs(inst Instance) ([]int32, string, error) {
	if pids, ok := jobMembers(inst.Job); ok {
		return pids, "job", nil
	}
	return nil, "", nil
}

// walkable: children are found from a listing (a toolhelp snapshot).
func walkable() bool { return false }

// jobMembers lists the job's processes; ok is false when there is no job
// to open (none recorded, or its last handle closed).
func jobMembers(name string) ([]int32, bool) {
	if name == "" {
		return nil, false
	}
	h, err := openJob(name)
	if err != nil {
		return nil, false
	}
	defer windows.CloseHandle(h)
	pids, err := jobPIDs(h)
	return pids, err == nil
}

// ownSession: Windows has no sessions of this kind; svc-ctl's own process
// is refused by ownable already.
func ownSession(int32) bool { return false }
