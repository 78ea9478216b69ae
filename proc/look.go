package proc

import (
	"fmt"
	"os"
	"slices"
)

// Depth says how far a Look goes.
type Depth int

const (
	// Walk starts from the members already known (the leader, the main
	// process, the remembered members) and walks down to their
	// descendants, reading only those processes (Linux: the processes
	// created since the instance's last Walk, else the members' children
	// files; walk_linux.go). It is what a cycle of a healthy service pays.
	Walk Depth = iota
	// Scan also reads every process: the marker in each environment of the
	// instance's user started since its leader, the sessions and process
	// groups members lead, the cgroup or job. It is for exit events, stops,
	// starts and what people ask (status, drill).
	Scan
)

// maxMembers bounds a tree (and so the record): a fork bomb in a service
// must not make svc-ctl's own records unbounded.
const maxMembers = 4096

// Look lists inst's live members now (see Instance for what proves one)
// and returns the record updated with what it saw: every live member
// remembered with its identity (a new one with what proved it), members
// that are gone forgotten unless a live member is in a session or group
// they led, and an older record's Outside list remembered as members. The
// record is for the caller to write when Changed says it differs.
func Look(inst Instance, d Depth) (Tree, Instance, error) {
	if err := ownable(inst); err != nil {
		return Tree{}, inst, err
	}
	l := &looker{inst: inst, boot: currentBoot(), members: map[int32]*seen{}, readOne: newProcReader(), depth: d}
	if otherBoot(inst, l.boot) {
		rec := inst
		rec.Remembered, rec.Outside, rec.Main = nil, nil, nil
		pi, err := readProc(inst.PID)
		return Tree{LeaderReused: err == nil && !pi.zombie}, rec, nil // a live process there is another one
	}
	if err := l.run(d); err != nil {
		return Tree{}, inst, fmt.Errorf("members of pid %d: %w", inst.PID, err)
	}
	return l.tree(), l.record(), nil
}

// seen is one member found by a look.
type seen struct {
	pi     procInfo
	id     Identity // as recorded on a Walk, for a member already known; else read now
	via    string
	leader bool
	known  *Known // its entry in the record, if it had one
}

type looker struct {
	inst    Instance
	boot    string
	members map[int32]*seen
	order   []string // proofs in order of first use
	all     []procInfo
	byPID   map[int32]procInfo
	reused  bool // the leader's pid is another process now
	full    bool // every process was listed
	depth   Depth
	// The PIDs handed out at this Walk and at the instance's last one
	// (walk_linux.go): quiet when none was since.
	pidNow, pidPrev            int32
	pidSeen, quiet, windowRead bool
	// readOne reads one process (Linux: the boot time read once per look,
	// not once per process: /proc/stat is costly to generate).
	readOne func(pid int32) (procInfo, error)
}

func (l *looker) run(d Depth) error {
	if d == Scan || !walkable() {
		if err := l.list(); err != nil {
			return err
		}
	}
	if d == Walk && !l.full {
		l.lastWalkPIDs()
	}
	l.seeds()
	if err := l.container(); err != nil {
		return err
	}
	for range 8 { // a member found may lead a session whose members prove more: to a fixed point
		n := len(l.members)
		if l.full {
			l.sessions()
			if d == Scan {
				l.markers()
			}
		}
		l.descendants()
		if len(l.members) == n {
			break
		}
	}
	return nil
}

func (l *looker) list() error {
	all, err := listProcs()
	if err != nil {
		return err
	}
	l.all, l.byPID, l.full = all, make(map[int32]procInfo, len(all)), true
	for _, pi := range all {
		l.byPID[pi.pid] = pi
	}
	return nil
}

// read is the process at pid now: from the listing when there is one.
func (l *looker) read(pid int32) (procInfo, bool) {
	if l.full {
		pi, ok := l.byPID[pid]
		return pi, ok
	}
	pi, err := l.readOne(pid)
	return pi, err == nil
}

func (l *looker) add(pi procInfo, via string, id *Identity, known *Known) bool {
	if pi.zombie || pi.pid <= 1 || int(pi.pid) == os.Getpid() || len(l.members) >= maxMembers {
		return false
	}
	if _, ok := l.members[pi.pid]; ok {
		return false
	}
	s := &seen{pi: pi, via: via, known: known}
	switch {
	case id != nil && l.depth == Walk:
		s.id = *id // as recorded: a Walk is a cycle's, which names nobody to people
	case id != nil:
		s.id = identityFrom(pi)       // the program it runs now, for people
		s.id.StartedAt = id.StartedAt // when svc-ctl spawned it, for the leader
	default:
		s.id = identityFrom(pi)
	}
	l.members[pi.pid] = s
	if via != "leader" && !slices.Contains(l.order, via) {
		l.order = append(l.order, via)
	}
	return true
}

// seeds are the members already known: the leader, the main process, the
// remembered members, each only while it is the very process recorded.
func (l *looker) seeds() {
	if pi, ok := l.readSeed(l.inst.Identity, nil); ok {
		if sameProcess(l.inst.Identity, pi, l.boot) {
			id := l.inst.Identity
			if l.add(pi, "leader", &id, nil) {
				l.members[pi.pid].leader = true
			}
		} else if !pi.zombie {
			l.reused = true
		}
	}
	if m := l.inst.Main; m != nil {
		if pi, ok := l.readSeed(*m, nil); ok && sameProcess(*m, pi, l.boot) {
			l.add(pi, cmpOr(l.inst.MainVia, "pid_file"), m, nil)
		}
	}
	for i := range l.inst.Remembered {
		k := &l.inst.Remembered[i]
		if pi, ok := l.readSeed(k.Identity, k); ok && sameProcess(k.Identity, pi, l.boot) {
			l.add(pi, cmpOr(k.Via, "remembered"), &k.Identity, k)
		}
	}
	for i := range l.inst.Outside {
		o := l.inst.Outside[i]
		if pi, ok := l.read(o.PID); ok && sameProcess(o, pi, l.boot) {
			l.add(pi, "outside", &o, nil)
		}
	}
}

// readSeed is the process at a known member's PID. On a quiet Walk (no
// process created since the instance's last Walk, so no PID reused either)
// a member still there is the one recorded: its facts are the record's,
// and only whether the PID exists is asked (lastWalkPIDs).
func (l *looker) readSeed(id Identity, k *Known) (procInfo, bool) {
	if !l.quiet {
		return l.read(id.PID)
	}
	if !pidExists(id.PID) {
		return procInfo{}, false
	}
	pi := procInfo{pid: id.PID, start: id.Start, createMs: id.CreateTime}
	if k != nil {
		pi.ppid, pi.session, pi.pgrp = k.PPID, k.SID, k.PGID
	} else if id.PID == l.inst.PID {
		pi.session, pi.pgrp = id.PID, id.PID // Spawn made the leader a session leader
	}
	return pi, true
}

// descendants adds every process that descends from a member: a child
// (its parent is a member, and it started no earlier than that member).
func (l *looker) descendants() {
	var kids map[int32][]procInfo
	if l.full {
		kids = map[int32][]procInfo{}
		for _, pi := range l.all {
			kids[pi.ppid] = append(kids[pi.ppid], pi)
		}
	}
	if !l.full && l.sinceLastWalk() {
		return
	}
	queue := make([]int32, 0, len(l.members))
	for pid := range l.members {
		queue = append(queue, pid)
	}
	slices.Sort(queue)
	for len(queue) > 0 && len(l.members) < maxMembers {
		parent := l.members[queue[0]]
		queue = queue[1:]
		var children []procInfo
		if l.full {
			children = kids[parent.pi.pid]
		} else if pids, ok := childrenOf(parent.pi.pid); ok {
			for _, pid := range pids {
				if _, known := l.members[pid]; known {
					continue
				}
				if pi, err := l.readOne(pid); err == nil {
					children = append(children, pi)
				}
			}
		}
		for _, c := range children {
			if c.ppid == parent.pi.pid && startedNoEarlier(c, parent.id) && l.add(c, "descendants", nil, nil) {
				queue = append(queue, c.pid)
			}
		}
	}
}

func (l *looker) tree() Tree {
	t := Tree{LeaderReused: l.reused}
	start := map[int32]uint64{}
	for _, s := range l.members {
		t.Members = append(t.Members, Member{Identity: s.id, PPID: s.pi.ppid, Leader: s.leader, Via: s.via, Stopped: s.pi.stopped})
		start[s.pi.pid] = s.pi.start
	}
	sortMembers(t.Members, start)
	t.Via = l.order
	return t
}

// record is inst with what the look saw (see Look).
func (l *looker) record() Instance {
	rec := l.inst
	rec.Outside = nil
	rec.Remembered = nil
	inUse := map[int32]bool{}
	for _, s := range l.members {
		inUse[s.pi.session], inUse[s.pi.pgrp] = true, true
	}
	pids := make([]int32, 0, len(l.members))
	for pid := range l.members {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	for _, pid := range pids {
		s := l.members[pid]
		if s.leader || (rec.Main != nil && rec.Main.PID == pid && rec.Main.Start == s.id.Start) {
			continue
		}
		if s.known != nil {
			rec.Remembered = append(rec.Remembered, *s.known)
			continue
		}
		rec.Remembered = append(rec.Remembered, Known{Identity: s.id, PPID: s.pi.ppid, SID: s.pi.session, PGID: s.pi.pgrp, Via: s.via})
	}
	// A member gone is forgotten, unless it led a session or group a live
	// member is in: that is what proves the live one.
	for _, k := range l.inst.Remembered {
		if _, live := l.members[k.PID]; !live && (k.SID == k.PID || k.PGID == k.PID) && inUse[k.PID] {
			rec.Remembered = append(rec.Remembered, k)
		}
	}
	return rec
}

// Changed reports whether the members a record remembers differ from
// before's (so the record is worth writing again).
func Changed(before, after Instance) bool {
	if len(before.Outside) > 0 || len(before.Remembered) != len(after.Remembered) {
		return true
	}
	for _, b := range before.Remembered {
		if !slices.ContainsFunc(after.Remembered, func(a Known) bool { return a.Same(b.Identity) }) {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
