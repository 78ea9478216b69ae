package agent

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// goSafe starts fn as a supervised goroutine: the L2 safety net. A panic is
// logged with its full stack (a cycle that panicked has already finished its
// run as failed/panic) and the loop starts again after a short backoff. With
// on_panic = "exit" the agent logs and exits non-zero instead. L2 is only safe
// because L3 exists: a loop that comes back is judged again by its cycles.
func (a *Agent) goSafe(ctx context.Context, name string, fn func(ctx context.Context)) {
	a.loops.Add(1)
	go func() {
		defer a.loops.Done()
		backoff := time.Second
		for {
			if !a.callSafe(ctx, name, fn) || ctx.Err() != nil {
				return
			}
			if a.cfg.Agent.OnPanic == "exit" {
				select {
				case a.fatal <- fmt.Errorf("panic in %s (on_panic = \"exit\")", name):
				default:
				}
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 30*time.Second)
		}
	}()
}

// callSafe runs fn and reports whether it panicked.
func (a *Agent) callSafe(ctx context.Context, name string, fn func(ctx context.Context)) (panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			panicked = true
			a.log.Error("panic.recovered", "loop", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	fn(ctx)
	return false
}
