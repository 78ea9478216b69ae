//go:build unix

package runas

import (
	"os/exec"
	"syscall"
)

// Apply makes cmd run as id (uid, gid, supplementary groups); nil leaves it
// as the caller's user. A health command of a service, or a notification
// command, that names a user runs as that user, never as root.
func Apply(cmd *exec.Cmd, id *Identity) {
	if id == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: id.Groups}
}
