//go:build unix

package proc

import (
	"syscall"

	"svcctl/internal/runas"
)

// credential is who the process runs as: nil keeps the agent's user. With
// an identity, the child gets its uid, gid and supplementary groups
// (setgroups, setgid, setuid, in that order, by os/exec) before it execs.
func credential(id *runas.Identity) *syscall.Credential {
	if id == nil {
		return nil
	}
	return &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: id.Groups}
}

// sessionAttr is the SysProcAttr of a detached start: a new session, as id.
func sessionAttr(id *runas.Identity) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Credential: credential(id)}
}
