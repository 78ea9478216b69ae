//go:build !unix && !windows

package control

import (
	"errors"
	"os"

	"svcctl/state"
)

// No signal wakes an agent on this OS.
var ReloadSignal, RequestSignal os.Signal

func Wake(state.Paths, int, Kind) error {
	return errors.New("svc-ctl cannot wake a running agent on this OS: restart it")
}
