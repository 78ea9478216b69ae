//go:build unix && !linux

package proc

// scanTree: the session is all that owns a tree here.
func scanTree(inst Instance) (Tree, error) {
	procs, err := listProcs()
	if err != nil {
		return Tree{}, err
	}
	boot := currentBoot()
	leader, reused := leaderOf(inst, indexByPID(procs), boot)
	t := buildTree(inst, leader, sessionMembers(inst, procs, reused, boot), []string{"session"})
	t.LeaderReused = reused
	return t, nil
}
