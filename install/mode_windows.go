//go:build windows

package install

import (
	"os"

	"svcctl/winsvc"
)

func gatherFacts() facts {
	isSvc, err := winsvc.IsService()
	return facts{getenv: os.Getenv, winService: err == nil && isSvc}
}
