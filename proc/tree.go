package proc

import (
	"cmp"
	"fmt"
	"os"
	"slices"
)

// Instance is one start of a service: the leader svc-ctl spawned, what owns
// the tree it grows, and the members seen so far. It is the instance record
// (the service's pid file).
//
// Membership is proven, never guessed (see the package comment): the
// leader; the process the service's pid_file names, adopted (Main);
// every process whose initial environment carries the instance's marker and
// that runs as the instance's user; the descendants of a member; the
// processes of a session or process group a member leads; the instance's
// cgroup (Linux, where delegated) or job object (Windows); and every member
// seen before (Remembered), by identity, so a member whose leader died, or
// which wrote its process title over its environment, stays one.
type Instance struct {
	Identity        // the leader: the process svc-ctl spawned
	Cgroup   string `json:"cgroup,omitempty"` // Linux: the instance's cgroup v2 directory
	Job      string `json:"job,omitempty"`    // Windows: the instance's job object name
	// Marker is the value of SVCCTL_INSTANCE in the environment the leader
	// was started with, which every process it starts inherits unless it
	// clears its environment or writes over it.
	Marker string `json:"marker,omitempty"`
	// Mode says what owns the tree besides the records: ModeCgroup,
	// ModeScope, ModeSubreaper, ModePlain, ModeJob (see the package comment).
	Mode string `json:"mode,omitempty"`
	// UID is the user the instance runs as (unix): a process carrying the
	// marker is a member only when it runs as this user, really and
	// effectively. Nil in a record of an older svc-ctl.
	UID *uint32 `json:"uid,omitempty"`
	// Main is the instance's main process when it is not the leader: the
	// process its pid_file names (MainVia "pid_file"), or the member found
	// serving its health port (MainVia "port"). kill_mode "main" signals it.
	Main    *Identity `json:"main,omitempty"`
	MainVia string    `json:"main_via,omitempty"`
	// Remembered is every other member seen, with its identity, what first
	// proved it, and its parent then.
	Remembered []Known `json:"members,omitempty"`
	// Console (Windows): the leader was given a hidden console of its own
	// and leads a process group on it: a stop can send it CTRL_BREAK.
	Console bool `json:"console,omitempty"`
	// Outside is what an older svc-ctl recorded of processes that left the
	// tree while the instance started and served its health port. Read,
	// and remembered as members at the next look (Look drops the field).
	Outside []Identity `json:"outside,omitempty"`
	// Resolved: read from a pending record (a spawn whose caller died
	// before it wrote the pid file), not from the pid file: the reader
	// that may write records writes this one.
	Resolved bool `json:"-"`
}

// Ownership modes (Instance.Mode).
const (
	ModeCgroup    = "cgroup"    // a cgroup of its own, which no fork leaves (Linux, delegated)
	ModeScope     = "scope"     // the same, under a transient scope systemd made for an agent started by hand
	ModeSubreaper = "subreaper" // started by a child subreaper: orphans are re-parented to it (Linux)
	ModePlain     = "plain"     // the records alone: marker, sessions, remembered members (macOS; a CLI start)
	ModeJob       = "job"       // a job object, which no process leaves (Windows)
)

// Known is a member remembered in the instance record.
type Known struct {
	Identity
	PPID int32  `json:"ppid"`           // its parent when first seen
	SID  int32  `json:"sid,omitempty"`  // its session then (== PID: it leads one)
	PGID int32  `json:"pgid,omitempty"` // its process group then (== PID: it leads one)
	Via  string `json:"via"`            // what first proved it (Member.Via)
}

// Member is one live process of an instance's tree.
type Member struct {
	Identity
	PPID   int32 `json:"ppid"`
	Leader bool  `json:"leader,omitempty"`
	// Via is what proves it a member: "leader", "pid_file", "port" (the
	// main process), "marker", "descendants", "session", "group",
	// "cgroup", "job", "outside" (an older record's), or, for a member
	// remembered from an earlier look, what proved it then.
	Via string `json:"via,omitempty"`
	// Stopped: stopped by a signal (SIGSTOP) or a tracer: alive, answering
	// nothing (a hung member).
	Stopped bool `json:"stopped,omitempty"`
}

// Tree is an instance's live processes as they are now.
type Tree struct {
	Members []Member `json:"members"` // the leader first while it lives, then oldest first
	// Via says what owns the tree: "cgroup" or "job" when one is in force,
	// then what proved the members other than the leader, in order of
	// first use.
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

// Member returns the member with pid.
func (t Tree) Member(pid int32) (Member, bool) {
	i := slices.IndexFunc(t.Members, func(m Member) bool { return m.PID == pid })
	if i < 0 {
		return Member{}, false
	}
	return t.Members[i], true
}

// Stopped lists the members stopped by a signal (hung).
func (t Tree) Stopped() []Member {
	var out []Member
	for _, m := range t.Members {
		if m.Stopped {
			out = append(out, m)
		}
	}
	return out
}

// Members lists inst's live processes now, with every proof (Look with
// Scan). An instance with no live process gives an empty Tree, not an
// error. Identities the agent must never touch (pid <= 1, its own process or
// session) give ErrInvalidIdentity.
func Members(inst Instance) (Tree, error) {
	t, _, err := Look(inst, Scan)
	return t, err
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

// otherBoot reports whether inst was recorded in an earlier boot: then none
// of its processes can be alive.
func otherBoot(inst Instance, boot string) bool {
	return inst.Boot != "" && boot != "" && inst.Boot != boot
}

// sortMembers puts the leader first, the rest oldest first.
func sortMembers(ms []Member, start map[int32]uint64) {
	slices.SortFunc(ms, func(a, b Member) int {
		if a.Leader != b.Leader {
			if a.Leader {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(start[a.PID], start[b.PID]), cmp.Compare(a.PID, b.PID))
	})
}

// Clone is inst with slices and pointers of its own.
func (inst Instance) Clone() Instance {
	c := inst
	c.Remembered = slices.Clone(inst.Remembered)
	c.Outside = slices.Clone(inst.Outside)
	if inst.Main != nil {
		m := *inst.Main
		c.Main = &m
	}
	if inst.UID != nil {
		u := *inst.UID
		c.UID = &u
	}
	return c
}
