//go:build unix

package probe

import (
	"os/exec"
	"syscall"

	"svcctl/internal/runas"
)

// runAs makes the check run as id (uid, gid, supplementary groups): a
// health command of a service run as another user runs as that user, never
// as root.
func runAs(cmd *exec.Cmd, id *runas.Identity) {
	if id == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: id.Groups}
}
