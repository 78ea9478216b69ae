//go:build windows

package install

import (
	"os"

	"golang.org/x/term"

	"svcctl/winsvc"
)

func gatherFacts() facts {
	isSvc, err := winsvc.IsService()
	return facts{
		getenv:     os.Getenv,
		euid:       -1,
		ppid:       os.Getppid(),
		stdinTTY:   term.IsTerminal(int(os.Stdin.Fd())),
		winService: err == nil && isSvc,
	}
}
