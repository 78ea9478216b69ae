//go:build !unix

package jobs

import (
	"os/exec"

	"svcctl/internal/runas"
)

// runAs has nothing to do: config refuses user and group on this OS.
func runAs(*exec.Cmd, *runas.Identity) {}
