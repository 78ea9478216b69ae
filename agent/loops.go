package agent

import (
	"context"
	"math/rand/v2"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// loopHandle stops the loops of one service or job.
type loopHandle struct {
	cancel context.CancelFunc
	done   []<-chan struct{}
}

// stop ends the loops and waits for them: a cycle or job run in progress
// finishes first (runs have a context of their own).
func (h *loopHandle) stop() {
	h.cancel()
	for _, d := range h.done {
		<-d
	}
}

// startService starts the loops of one service: its cycles and, with
// [service.limits], its sampler. first, when set, is its first cycle, at
// once (a reload that changed what the instance runs).
func (a *Agent) startService(svc *config.Service, first *watchdog.Request) {
	a.loopMu.Lock()
	ch := a.triggers[svc.Name]
	if ch == nil {
		ch = make(chan watchdog.Request, 1)
		a.triggers[svc.Name] = ch
	}
	ctx, cancel := context.WithCancel(a.loopCtx)
	h := &loopHandle{cancel: cancel}
	h.done = append(h.done, a.net.GoSafe(ctx, "service:"+svc.Name, func(ctx context.Context) { a.serviceLoop(ctx, a.runCtx, svc, ch) }))
	if svc.Limits.Set() {
		h.done = append(h.done, a.net.GoSafe(ctx, "limits:"+svc.Name, func(ctx context.Context) { a.limitLoop(ctx, svc) }))
	}
	a.svcLoops[svc.Name] = h
	a.loopMu.Unlock()
	if first != nil {
		select { // the reload's request replaces one pending: it is the newer word
		case <-ch:
		default:
		}
		ch <- *first
	}
	a.adopt(svc.Name)
}

// stopService stops a service's loops and waits for them; removed also
// forgets its trigger channel (the service is gone from the config).
func (a *Agent) stopService(name string, removed bool) {
	a.loopMu.Lock()
	h := a.svcLoops[name]
	delete(a.svcLoops, name)
	if removed {
		delete(a.triggers, name)
	}
	a.loopMu.Unlock()
	if h != nil {
		h.stop()
	}
}

// serviceLoop runs one service's cycles: after a random stagger, every
// `interval`, and at once on a trigger (an exit, a wake). One goroutine per
// service, so two cycles of one service never overlap in this process; the
// file lock covers other processes.
func (a *Agent) serviceLoop(ctx, runCtx context.Context, svc *config.Service, triggers <-chan watchdog.Request) {
	name := svc.Name
	stagger := a.stagger(svc.Interval)
	if !a.instanceLives(name) {
		stagger = 0 // nothing runs: the first check is now, not after a stagger meant for healthy services
	}
	timer := time.NewTimer(stagger)
	defer timer.Stop()
	for {
		var req watchdog.Request
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			req = watchdog.Request{Trigger: runtrace.TriggerSchedule}
		case req = <-triggers:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
		}
		if ctx.Err() != nil {
			if a.loopCtx.Err() != nil { // the agent stops (not a reload restarting this loop)
				a.skipDraining(name, req)
			}
			return
		}
		if _, err := a.sup.Ensure(runCtx, name, req); err != nil {
			a.log.Error("cycle.failed", "service", name, "err", err)
		}
		a.adopt(name)
		timer.Reset(svc.Interval)
	}
}

// instanceLives reports whether some process of the service's recorded
// instance runs.
func (a *Agent) instanceLives(name string) bool {
	inst, err := a.sup.Instance(name)
	if err != nil {
		return false
	}
	t, err := proc.Members(inst)
	return err != nil || t.Len() > 0 // a tree that cannot be listed is given the benefit of the doubt
}

// stagger spreads the first cycles: at most min(interval, 30s), so services
// configured together do not all probe and spawn in the same instant.
func (a *Agent) stagger(interval time.Duration) time.Duration {
	limit := min(interval, 30*time.Second)
	if a.o.MaxStagger != 0 {
		limit = min(limit, a.o.MaxStagger)
	}
	if limit <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(limit)))
}

// trigger asks for a cycle of name now. Triggers coalesce: one pending is
// enough. While draining, a trigger is recorded as skipped/draining.
func (a *Agent) trigger(name string, req watchdog.Request) {
	a.loopMu.RLock()
	ch := a.triggers[name]
	a.loopMu.RUnlock()
	if ch == nil {
		return // no longer in the config: a reload removed it
	}
	if a.draining.Load() {
		a.skipDraining(name, req)
		return
	}
	select {
	case ch <- req:
	default:
	}
}

func (a *Agent) skipDraining(name string, req watchdog.Request) {
	a.record(runtrace.WatchdogID(name), req.Trigger, runtrace.OutcomeSkipped, runtrace.ReasonDraining,
		map[string]any{"why": "the agent is stopping"})
}
