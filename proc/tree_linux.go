package proc

// scanTree: the session, and the instance's cgroup where it has one. Only
// the session's processes and the leader's PID are read (listSession); the
// cgroup's members are read from its cgroup.procs.
func scanTree(inst Instance) (Tree, error) {
	procs, err := listSession(inst.PID)
	if err != nil {
		return Tree{}, err
	}
	boot := currentBoot()
	byPID := indexByPID(procs)
	leader, reused := leaderOf(inst, byPID, boot)
	found := sessionMembers(inst, procs, reused, boot)
	via := []string{"session"}
	if inst.Cgroup != "" && !otherBoot(inst, boot) {
		pids, err := cgroupProcs(inst.Cgroup)
		if err != nil {
			return Tree{}, err
		}
		for _, pid := range pids {
			if pi, ok := byPID[pid]; ok {
				found = append(found, pi)
			} else if pi, err := readProc(pid); err == nil { // born after the listing
				found = append(found, pi)
			}
		}
		via = append(via, "cgroup")
	}
	t := buildTree(inst, leader, found, via)
	t.LeaderReused = reused
	return t, nil
}
