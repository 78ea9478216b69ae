//go:build unix

package child

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// startOrphan starts a grandchild in a session of its own and exits at
// once: the grandchild is re-parented to the nearest subreaper (the test).
func startOrphan() int {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), helperEnv+"=late")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		return 1
	}
	os.Stdout.WriteString(strconv.Itoa(c.Process.Pid) + "\n")
	return 0
}
