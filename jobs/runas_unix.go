//go:build unix

package jobs

import (
	"os/exec"
	"syscall"

	"svcctl/internal/runas"
)

// runAs makes cmd run as id (uid, gid, supplementary groups); nil keeps the
// caller's user.
func runAs(cmd *exec.Cmd, id *runas.Identity) {
	if id == nil {
		return
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: id.Groups}}
}
