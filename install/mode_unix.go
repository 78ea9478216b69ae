//go:build !windows

package install

import (
	"os"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

func gatherFacts() facts {
	return facts{
		getenv:   os.Getenv,
		euid:     os.Geteuid(),
		ppid:     os.Getppid(),
		stdinTTY: term.IsTerminal(int(os.Stdin.Fd())),
		sessionLeader: func() bool {
			sid, err := unix.Getsid(0)
			return err == nil && sid == os.Getpid()
		}(),
	}
}
