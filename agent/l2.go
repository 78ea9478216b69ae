package agent

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"
)

// The L2 safety net (docs/architecture.md, "The three layers"): every
// goroutine this package starts goes through goSafe (a loop, started again
// after a panic) or goOnce (one piece of work: a job run, an exit watcher, a
// helper), and every metrics request through recoverHTTP. A panic is logged
// with its full stack, recorded against the run it broke where one was open
// (failed/panic), and the agent goes on; with on_panic = "exit" it drains and
// exits non-zero instead. L2 is only safe because L3 exists: a loop that
// comes back is judged again by its cycles. TestEveryGoroutineIsGuarded holds
// that no `go` statement of this package or its own packages lives outside
// this file (jobs.goCommand's is the command line's, which has no agent to
// keep alive).

// goSafe starts fn as a supervised loop: after a panic it starts again after
// a short backoff (doubling up to 30 s), until ctx ends. The channel it
// returns is closed when the loop has ended for good.
func (a *Agent) goSafe(ctx context.Context, name string, fn func(ctx context.Context)) <-chan struct{} {
	a.loops.Add(1)
	a.guarded.Add(1)
	done := make(chan struct{})
	go func() {
		defer a.loops.Done()
		defer close(done)
		backoff := time.Second
		for {
			if !a.guard(name, func() { fn(ctx) }, nil) || ctx.Err() != nil {
				return
			}
			if a.config().Agent.OnPanic == "exit" {
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
	return done
}

// goOnce runs fn once in a goroutine under the net. onPanic, when set, is
// told of a panic (with the stack) so it can finish the run fn had open.
// Nothing is started again: a one-shot piece of work has nothing to come
// back to, and the periodic cycle covers what it would have triggered.
func (a *Agent) goOnce(name string, fn func(), onPanic func(p any, stack string)) {
	a.guarded.Add(1)
	go a.guard(name, fn, onPanic)
}

// guard runs fn and reports whether it panicked.
func (a *Agent) guard(name string, fn func(), onPanic func(p any, stack string)) (panicked bool) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		panicked = true
		stack := string(debug.Stack())
		a.panics.Add(1)
		a.log.Error("panic.recovered", "goroutine", name, "panic", fmt.Sprint(p), "stack", stack)
		if onPanic != nil {
			a.afterPanic(name, onPanic, p, stack)
		}
		if a.config().Agent.OnPanic == "exit" {
			select {
			case a.fatal <- fmt.Errorf("panic in %s (on_panic = \"exit\"): %v", name, p):
			default:
			}
		}
	}()
	fn()
	return false
}

// afterPanic calls onPanic under a net of its own: recording a panic must
// not be what brings the agent down.
func (a *Agent) afterPanic(name string, onPanic func(p any, stack string), p any, stack string) {
	defer func() {
		if q := recover(); q != nil {
			a.log.Error("panic.record_failed", "goroutine", name, "panic", fmt.Sprint(q), "stack", string(debug.Stack()))
		}
	}()
	onPanic(p, stack)
}

// recoverHTTP puts each request of the metrics server under the net: the
// panic is logged with its stack as any other, the client gets a 500, and
// the server goes on. (net/http would recover it too, but only to print it
// on stderr, where nobody reads an OS service's output.)
func (a *Agent) recoverHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.guard("metrics "+r.URL.Path, func() { h.ServeHTTP(w, r) }, nil) {
			http.Error(w, "internal error: see agent.log (panic.recovered)", http.StatusInternalServerError)
		}
	})
}
