//go:build !windows

package agent

import "context"

// osWakes: on unix the wakes come as signals, through Options.Reload and
// Options.Requests; there is nothing more to listen to.
func (a *Agent) osWakes(context.Context) <-chan struct{} { return nil }
