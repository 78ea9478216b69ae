package agent

import (
	"context"
	"time"

	"svcctl/agent/lean"
)

// trimLoop trims (lean.Trim) once start-up is over, then every
// lean.TrimEvery.
func (a *Agent) trimLoop(ctx context.Context) {
	t := time.NewTimer(lean.TrimAfter)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	trim := func(context.Context) { lean.Trim(a.log) }
	trim(ctx)
	every(ctx, lean.TrimEvery, trim)
}
