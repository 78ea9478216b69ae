//go:build !unix && !windows

package agent

import (
	"context"
	"errors"

	"svcctl/state"
)

func signalReload(state.Paths, int) error {
	return errors.New("svc-ctl cannot ask an agent to reload on this OS: restart it")
}

func (a *Agent) osReloadRequests(context.Context) <-chan struct{} { return nil }
