// Package startcheck runs `svc-ctl verify` once in the agent, a little
// after its start, and has people told of every check that FAILs.
//
// What this package must never do: run before the agent's first cycles had
// their turn, or keep a FAIL to itself.
package startcheck

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"svcctl/internal/words"
)

// Run runs checks once when after has passed (30 s when 0): a little after
// the agent started (its first cycles and the catch-up of jobs have had
// their turn). Every check that FAILs is told to people at once (failed: one
// `agent` event): an
// agent that runs but is not installed to start after a reboot, a state dir
// or ledger it cannot trust or write, a given-up service, a channel that
// has been failing for a day — each would otherwise wait for someone to
// run `svc-ctl verify`, which nobody does until something is already lost.
// failed is told of the FAILs: a line naming them (msg) and each (detail).
func Run(ctx context.Context, after time.Duration, checks func(context.Context) []string, log *slog.Logger, failed func(msg, detail string)) {
	if after <= 0 {
		after = 30 * time.Second
	}
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	fails := checks(ctx)
	if ctx.Err() != nil {
		return
	}
	if len(fails) == 0 {
		log.Info("verify.passed")
		return
	}
	log.Warn("verify.failed", "checks", len(fails), "first", fails[0])
	names := make([]string, len(fails))
	for i, f := range fails {
		names[i], _, _ = strings.Cut(f, ":")
	}
	msg := fmt.Sprintf("verify at the agent's start: %s FAIL: %s ('svc-ctl verify' for the evidence)",
		words.Count(len(fails), "check", "checks"), strings.Join(names, ", "))
	failed(msg, strings.Join(fails, "\n"))
}
