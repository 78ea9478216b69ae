package proc

import (
	"cmp"
	"fmt"
	"os"
	"slices"
)

// Instance is one start of a service: the leader svc-ctl spawned, and what
// owns the tree it grows. It is what the pid file records.
//
// Ownership, per OS (see the package comment for what escapes it):
//   - unix: the session the leader leads (Spawn calls setsid): every process
//     whose session id is the leader's PID and that started no earlier than
//     the leader. The kernel does not hand out a PID that is still a
//     session's id, so while any member lives the session is ours.
//   - Linux, where the caller gave Spawn a cgroup v2 parent (a delegated
//     cgroup under systemd): also every process in the instance's own
//     cgroup, which no fork, setsid or double fork leaves.
//   - Windows: every process in the instance's named job object.
type Instance struct {
	Identity        // the leader: the process svc-ctl spawned
	Cgroup   string `json:"cgroup,omitempty"` // Linux: the instance's cgroup v2 directory
	Job      string `json:"job,omitempty"`    // Windows: the instance's job object name
	// Outside names processes that left the tree while this instance
	// started and then served its health port (a daemon that called setsid
	// where no cgroup keeps it): the watchdog recognises them by identity as
	// this instance's server, so it does not take them for a stranger. They
	// are not members: nothing svc-ctl does signals them.
	Outside []Identity `json:"outside,omitempty"`
}

// Member is one live process of an instance's tree.
type Member struct {
	Identity
	PPID   int32 `json:"ppid"`
	Leader bool  `json:"leader,omitempty"`
}

// Tree is an instance's live processes as they are now.
type Tree struct {
	Members []Member `json:"members"` // the leader first while it lives, then oldest first
	// Via says what proved membership: "session", "cgroup", "job",
	// "descendants" (Windows, when the job cannot be opened).
	Via []string `json:"via"`
	// LeaderReused: a live process holds the leader's PID but is not the
	// leader (the PID was reused after the whole instance ended).
	LeaderReused bool `json:"leader_reused,omitempty"`
}

// LeaderAlive reports whether the process svc-ctl spawned still runs.
func (t Tree) LeaderAlive() bool { return len(t.Members) > 0 && t.Members[0].Leader }

// Len is the number of live processes in the tree.
func (t Tree) Len() int { return len(t.Members) }

// Has reports whether pid is a member.
func (t Tree) Has(pid int32) bool {
	return slices.ContainsFunc(t.Members, func(m Member) bool { return m.PID == pid })
}

// Members lists inst's live processes now. An instance with no live
// process gives an empty Tree, not an error. Identities the agent must never
// touch (pid <= 1, its own process or session) give ErrInvalidIdentity.
func Members(inst Instance) (Tree, error) {
	if err := ownable(inst); err != nil {
		return Tree{}, err
	}
	t, err := scanTree(inst)
	if err != nil {
		return Tree{}, fmt.Errorf("members of pid %d: %w", inst.PID, err)
	}
	return t, nil
}

// ownable refuses identities no service can have: init, svc-ctl itself, and
// the session or process group svc-ctl runs in (a service is spawned in a
// session of its own, so one recorded as ours is a bad record).
func ownable(inst Instance) error {
	self := os.Getpid()
	switch {
	case inst.PID <= 1:
		return fmt.Errorf("pid %d: %w: not a service process", inst.PID, ErrInvalidIdentity)
	case int(inst.PID) == self:
		return fmt.Errorf("pid %d: %w: that is svc-ctl itself", inst.PID, ErrInvalidIdentity)
	case ownSession(inst.PID):
		return fmt.Errorf("pid %d: %w: it leads svc-ctl's own session or process group", inst.PID, ErrInvalidIdentity)
	}
	return nil
}

// buildTree turns the processes found into a Tree: the leader first (when
// it is alive and is the leader), the rest oldest first, never svc-ctl
// itself, each once.
func buildTree(inst Instance, leader *procInfo, found []procInfo, via []string) Tree {
	t := Tree{Via: via}
	seen := map[int32]bool{int32(os.Getpid()): true}
	if leader != nil {
		t.Members = append(t.Members, member(*leader, true))
		seen[leader.pid] = true
	}
	rest := make([]procInfo, 0, len(found))
	for _, pi := range found {
		if !seen[pi.pid] && !pi.zombie {
			seen[pi.pid] = true
			rest = append(rest, pi)
		}
	}
	slices.SortFunc(rest, func(a, b procInfo) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.pid, b.pid)) })
	for _, pi := range rest {
		t.Members = append(t.Members, member(pi, false))
	}
	return t
}

func member(pi procInfo, leader bool) Member {
	return Member{Identity: identityFrom(pi), PPID: pi.ppid, Leader: leader}
}

// leaderOf classifies the process at inst.PID: the live leader (non-nil),
// or whether the PID now belongs to someone else.
func leaderOf(inst Instance, byPID map[int32]procInfo, boot string) (leader *procInfo, reused bool) {
	pi, ok := byPID[inst.PID]
	if !ok {
		return nil, false
	}
	if !sameProcess(inst.Identity, pi, boot) {
		return nil, true
	}
	if pi.zombie {
		return nil, false // our leader, exited and not yet reaped
	}
	return &pi, false
}

// otherBoot reports whether inst was recorded in an earlier boot: then none
// of its processes can be alive.
func otherBoot(inst Instance, boot string) bool {
	return inst.Boot != "" && boot != "" && inst.Boot != boot
}

func indexByPID(procs []procInfo) map[int32]procInfo {
	m := make(map[int32]procInfo, len(procs))
	for _, pi := range procs {
		m[pi.pid] = pi
	}
	return m
}
