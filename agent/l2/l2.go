// Package l2 is the L2 safety net (docs/architecture.md, "The three layers"):
// every goroutine the agent starts goes through GoSafe (a loop, started again
// after a panic) or GoOnce (one piece of work: a job run, an exit watcher, a
// helper), and every metrics request through RecoverHTTP. A panic is logged
// with its full stack, recorded against the run it broke where one was open
// (failed/panic, by onPanic), and the agent goes on; with on_panic = "exit"
// it drains and exits non-zero instead. L2 is only safe because L3 exists: a
// loop that comes back is judged again by its cycles. A fatal runtime error,
// which no recover sees, goes to crash.log (OpenCrashLog) and is reported
// once at the next start.
//
// What this package must never do: let a panic end the agent (unless
// on_panic = "exit" says so), or let recording a panic be what brings the
// agent down. agent/l2_test.go holds that no `go` statement of the agent or
// its parts lives outside this file (jobs.goCommand's is the command
// line's, which has no agent to keep alive).
package l2

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Net is the agent's L2 net: every goroutine it starts, and each request
// of its metrics server, runs under it.
type Net struct {
	Log *slog.Logger
	// Exit says on_panic = "exit" is in force: a loop that panicked is not
	// started again, and the panic is sent on Fatal (the agent drains and
	// exits non-zero).
	Exit  func() bool
	Fatal chan<- error

	loops   sync.WaitGroup
	guarded atomic.Int64 // goroutines started under the net
	panics  atomic.Int64 // panics it recovered
}

// WaitLoops waits for every loop GoSafe started to end for good.
func (n *Net) WaitLoops() { n.loops.Wait() }

// Guarded counts the goroutines started under the net; Panics, the panics
// it recovered.
func (n *Net) Guarded() int64 { return n.guarded.Load() }

// Panics counts the panics the net recovered.
func (n *Net) Panics() int64 { return n.panics.Load() }

// GoSafe starts fn as a supervised loop: after a panic it starts again after
// a short backoff (doubling up to 30 s), until ctx ends. The channel it
// returns is closed when the loop has ended for good.
func (n *Net) GoSafe(ctx context.Context, name string, fn func(ctx context.Context)) <-chan struct{} {
	n.loops.Add(1)
	n.guarded.Add(1)
	done := make(chan struct{})
	go func() {
		defer n.loops.Done()
		defer close(done)
		backoff := time.Second
		for {
			if !n.Guard(name, func() { fn(ctx) }, nil) || ctx.Err() != nil {
				return
			}
			if n.Exit() {
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

// GoOnce runs fn once in a goroutine under the net. onPanic, when set, is
// told of a panic (with the stack) so it can finish the run fn had open.
// Nothing is started again: a one-shot piece of work has nothing to come
// back to, and the periodic cycle covers what it would have triggered.
func (n *Net) GoOnce(name string, fn func(), onPanic func(p any, stack string)) {
	n.guarded.Add(1)
	go n.Guard(name, fn, onPanic)
}

// Guard runs fn and reports whether it panicked.
func (n *Net) Guard(name string, fn func(), onPanic func(p any, stack string)) (panicked bool) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		panicked = true
		stack := string(debug.Stack())
		n.panics.Add(1)
		n.Log.Error("panic.recovered", "goroutine", name, "panic", fmt.Sprint(p), "stack", stack)
		if onPanic != nil {
			n.afterPanic(name, onPanic, p, stack)
		}
		if n.Exit() {
			select {
			case n.Fatal <- fmt.Errorf("panic in %s (on_panic = \"exit\"): %v", name, p):
			default:
			}
		}
	}()
	fn()
	return false
}

// afterPanic calls onPanic under a net of its own: recording a panic must
// not be what brings the agent down.
func (n *Net) afterPanic(name string, onPanic func(p any, stack string), p any, stack string) {
	defer func() {
		if q := recover(); q != nil {
			n.Log.Error("panic.record_failed", "goroutine", name, "panic", fmt.Sprint(q), "stack", string(debug.Stack()))
		}
	}()
	onPanic(p, stack)
}

// RecoverHTTP puts each request of the metrics server under the net: the
// panic is logged with its stack as any other, the client gets a 500, and
// the server goes on. (net/http would recover it too, but only to print it
// on stderr, where nobody reads an OS service's output.)
func (n *Net) RecoverHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Guard("metrics "+r.URL.Path, func() { h.ServeHTTP(w, r) }, nil) {
			http.Error(w, "internal error: see agent.log (panic.recovered)", http.StatusInternalServerError)
		}
	})
}
