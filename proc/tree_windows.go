package proc

import "golang.org/x/sys/windows"

// scanTree: the instance's job when it can be opened; otherwise the
// leader's descendants by parent links (a process names its parent's PID
// even after that parent exited, so a child created before its "parent"
// is a stranger that inherited a reused PID, and is skipped).
func scanTree(inst Instance) (Tree, error) {
	procs, err := listProcs()
	if err != nil {
		return Tree{}, err
	}
	byPID := indexByPID(procs)
	leader, reused := leaderOf(inst, byPID, "")
	var found []procInfo
	via := []string{"descendants"}
	if pids, ok := jobMembers(inst.Job); ok {
		via = []string{"job"}
		for _, pid := range pids {
			if pi, ok := byPID[pid]; ok {
				found = append(found, pi)
			} else if pi, err := readProc(pid); err == nil {
				found = append(found, pi)
			}
		}
	} else if !reused {
		found = descendants(inst, procs)
	}
	t := buildTree(inst, leader, found, via)
	t.LeaderReused = reused
	return t, nil
}

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

func descendants(inst Instance, procs []procInfo) []procInfo {
	kids := map[int32][]procInfo{}
	for _, pi := range procs {
		kids[pi.ppid] = append(kids[pi.ppid], pi)
	}
	var out []procInfo
	type node struct {
		pid   int32
		start uint64
	}
	queue := []node{{inst.PID, inst.Start}}
	seen := map[int32]bool{inst.PID: true}
	for len(queue) > 0 && len(out) < 4096 {
		n := queue[0]
		queue = queue[1:]
		for _, k := range kids[n.pid] {
			if seen[k.pid] || k.start < n.start {
				continue
			}
			seen[k.pid] = true
			out = append(out, k)
			queue = append(queue, node{k.pid, k.start})
		}
	}
	return out
}

// ownSession: Windows has no sessions of this kind; svc-ctl's own process
// is refused by ownable already.
func ownSession(int32) bool { return false }
