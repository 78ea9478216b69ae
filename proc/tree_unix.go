//go:build unix

package proc

import "golang.org/x/sys/unix"

// sessionMembers are the processes of the session the leader created with
// setsid: session id == the leader's PID, started no earlier than the
// leader, in this boot. When the leader's PID now belongs to someone else,
// the session with that id is theirs (the kernel reuses a PID only once no
// process has it as its session id), so nothing is ours.
func sessionMembers(inst Instance, procs []procInfo, reused bool, boot string) []procInfo {
	if reused || otherBoot(inst, boot) {
		return nil
	}
	var out []procInfo
	for _, pi := range procs {
		if pi.session == inst.PID && pi.pid != inst.PID && startedNoEarlier(pi, inst.Identity) {
			out = append(out, pi)
		}
	}
	return out
}

// ownSession reports whether pid is the id of svc-ctl's own session or
// process group.
func ownSession(pid int32) bool {
	sid, err1 := unix.Getsid(0)
	pgid, err2 := unix.Getpgid(0)
	return (err1 == nil && sid == int(pid)) || (err2 == nil && pgid == int(pid))
}
