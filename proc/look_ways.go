package proc

import (
	"slices"
)

// The ways a look finds members the leader's descendants miss: the
// instance's cgroup or job, the sessions and process groups its members
// lead, and the processes that carry its marker in their environment.

// container adds the members of the instance's cgroup or job.
func (l *looker) container() error {
	pids, via, err := containerPIDs(l.inst)
	if err != nil {
		return err
	}
	if via != "" && !slices.Contains(l.order, via) {
		l.order = append([]string{via}, l.order...)
	}
	for _, pid := range pids {
		if pi, ok := l.read(pid); ok {
			l.add(pi, via, nil, nil)
		} else if pi, err := l.readOne(pid); err == nil { // born after the listing
			l.add(pi, via, nil, nil)
		}
	}
	return nil
}

// A session or process group id is its leader's PID, and the kernel gives
// no process a PID that is still a session's or a group's id: while anyone
// is in it, the id is the leader's, so every process in it that started no
// earlier than the leader is in the leader's session or group.

// sessions adds the processes of every session and process group a member
// leads (or led: the leader's, a remembered member's, while its PID is not
// another process's now).
func (l *looker) sessions() {
	sessions, groups := map[int32]Identity{}, map[int32]Identity{}
	if !l.reused {
		sessions[l.inst.PID] = l.inst.Identity // Spawn made the leader a session leader
	}
	for _, s := range l.members {
		if s.pi.session == s.pi.pid {
			sessions[s.pi.pid] = s.id
		}
		if s.pi.pgrp == s.pi.pid {
			groups[s.pi.pid] = s.id
		}
	}
	for _, k := range l.inst.Remembered {
		if _, live := l.members[k.PID]; live {
			continue
		}
		if pi, held := l.byPID[k.PID]; held && !pi.zombie {
			continue // the pid is another process's now: its sessions are its own
		}
		if k.SID == k.PID {
			sessions[k.PID] = k.Identity
		}
		if k.PGID == k.PID {
			groups[k.PID] = k.Identity
		}
	}
	for _, pi := range l.all {
		if pi.session == 0 {
			continue // no sessions here (Windows)
		}
		if id, ok := sessions[pi.session]; ok && startedNoEarlier(pi, id) {
			l.add(pi, "session", nil, nil)
		} else if id, ok := groups[pi.pgrp]; ok && startedNoEarlier(pi, id) {
			l.add(pi, "group", nil, nil)
		}
	}
}

// markers adds every process that started since the leader, runs as the
// instance's user (really and effectively) and whose environment carries
// the instance's marker as one whole entry.
func (l *looker) markers() {
	if l.inst.Marker == "" {
		return
	}
	entry := MarkerEnv + "=" + l.inst.Marker
	for _, pi := range l.all {
		if _, ok := l.members[pi.pid]; ok || pi.zombie || !startedNoEarlier(pi, l.inst.Identity) {
			continue
		}
		if !l.runsAsUser(pi.pid) {
			continue
		}
		env, err := environOf(pi.pid)
		if err == nil && hasEntry(env, entry) {
			l.add(pi, "marker", nil, nil)
		}
	}
}

// runsAsUser reports whether pid runs as the instance's user, really and
// effectively: a marker copied into another user's process (a setuid
// program the service ran, say) proves nothing about that process.
func (l *looker) runsAsUser(pid int32) bool {
	if l.inst.UID == nil {
		return false // an older record has no user to check against (nor a marker)
	}
	r, e, ok := uidsOf(pid)
	return ok && r == *l.inst.UID && e == *l.inst.UID
}

// MarkerEnv is the environment variable that carries an instance's marker.
const MarkerEnv = "SVCCTL_INSTANCE"
