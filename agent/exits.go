package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"svcctl/internal/child"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// The fast path on exits (docs/architecture.md, "The agent"): the leader the
// agent spawned is waited on, every other member and every instance it did not
// spawn is watched; an exit makes the service cycle at once.

// onSpawn is the fast path: when an instance we spawned ends, its service's
// cycle runs at once; the end is the second look, so confirm is skipped.
// What ends an instance is its main process ending (the leader, unless a
// pid_file or the health port named another member), or the last process
// of its tree: a launcher that forked the server and exited is watched
// through its tree and its main process instead.
func (a *Agent) onSpawn(name string, c *proc.Child) {
	a.watched.Store(name, idKey(c.Identity))
	select {
	case a.logSpawned <- name: // its log is a new file: watch it from its first line
	default: // the cap loop is behind; its next look finds the file anyway
	}
	a.net.GoOnce("exit-watch:"+name, func() {
		<-c.Done
		a.act(func() { a.leaderExited(name, c.Identity, c.Exit()) })
	}, nil)
}

// leaderExited decides what the leader's exit means, once no cycle holds the
// service's lock (a start in progress judges its own leader's exit): the
// end of the instance (no member left, or the leader was its main process:
// a cycle now), or a launcher that left its tree running (watch it).
func (a *Agent) leaderExited(name string, id proc.Identity, how string) {
	if a.serviceLockHeld(name) {
		a.log.Info("service.exit_waits_lock", "service", name, "service_pid", id.PID, "how", how)
		a.net.GoOnce("leader-exit-after-lock:"+name, func() {
			a.act(func() {
				if a.waitServiceLock(name) {
					a.leaderExited(name, id, how)
				}
			})
		}, nil)
		return
	}
	if !a.current(name, id) {
		a.adoptNewer(name, id)
		return
	}
	t, rec, err := a.sup.Track(name, true)
	if err != nil || t.Len() == 0 || rec.Main == nil {
		// No member left; or the leader was the main process (no pid_file
		// daemon, no other member serving the port): its death is news
		// whatever members it left, and the cycle judges by the probe.
		a.onExit(name, id, how, err == nil && t.Len() == 0)
		return
	}
	a.log.Info("service.leader_exited", "service", name, "service_pid", id.PID, "how", how, "live", t.Len(), "main_pid", rec.Main.PID)
	a.watchInstance(name, rec, how+"; then ")
}

// adopt watches the recorded instance of a service this process did not
// spawn (after an agent restart, or one started by `svc-ctl start`): its
// main process and every process of its tree, through the OS (pidfd,
// kqueue, process handle). Where the OS cannot wait on a foreign process
// the periodic cycle covers it. It reports whether the recorded instance is
// watched now.
func (a *Agent) adopt(name string) bool {
	inst, err := a.sup.Instance(name)
	if err != nil {
		return false
	}
	key := idKey(inst.Identity)
	if v, ok := a.watched.Load(name); ok && v.(string) == key {
		return true
	}
	if !a.watchInstance(name, inst, "") {
		return false
	}
	a.log.Debug("service.adopted", "service", name, "service_pid", inst.PID)
	return true
}

// watchInstance watches what ends the instance inst: its main process (the
// recorded one, else the leader while it lives), and its whole tree, which
// is looked at again (and remembered in the record) whenever a member ends.
// Either end is a cycle at once. why prefixes the words of the end.
func (a *Agent) watchInstance(name string, inst proc.Instance, why string) bool {
	key := idKey(inst.Identity)
	look := func() (proc.Tree, error) {
		t, _, err := a.sup.Track(name, false)
		if errors.Is(err, os.ErrNotExist) {
			return proc.Tree{}, nil // the record is gone: so is the instance, for this watch
		}
		return t, err
	}
	done, err := proc.WatchTreeWith(inst, look)
	if err != nil {
		return false // no process of it left, or the OS cannot watch: the periodic cycle covers it
	}
	a.watched.Store(name, key)
	main := inst.Main
	if main == nil {
		leader := inst.Identity
		main = &leader // the leader, if it lives: a foreground server
	}
	mainDone, merr := proc.WatchExit(*main)
	if merr != nil {
		mainDone = nil // gone already (a launcher), or not watchable: the tree watch remains
	}
	a.net.GoOnce("exit-watch:"+name, func() {
		select {
		case <-done:
			a.act(func() { a.onExit(name, inst.Identity, why+"every process of its tree exited", true) })
		case <-mainDone:
			a.act(func() {
				a.onExit(name, inst.Identity, fmt.Sprintf("%sits main process (pid %d) exited", why, main.PID), false)
			})
		}
	}, nil)
	return true
}

// orphanReaped is told of every orphan the agent reaped: a process of some
// service's tree re-parented to the agent (it is a subreaper) that has now
// exited. When a service's record remembers that pid, its tree is looked at
// again now (the member's own exit watch may not have fired yet, or there
// was none: a member not yet seen).
func (a *Agent) orphanReaped(o child.Orphan) {
	a.log.Debug("orphan.reaped", "pid", o.PID, "how", o.Exit)
	for _, s := range a.config().Services {
		inst, err := a.sup.Instance(s.Name)
		if err != nil || !remembers(inst, o.PID) {
			continue
		}
		a.act(func() {
			if t, _, err := a.sup.Track(s.Name, false); err == nil && t.Len() == 0 {
				a.onExit(s.Name, inst.Identity, "every process of its tree exited (the last, pid "+fmt.Sprint(o.PID)+", "+o.Exit+")", true)
			}
		})
	}
}

// remembers reports whether inst's record names pid (its leader, main
// process or a remembered member).
func remembers(inst proc.Instance, pid int32) bool {
	if inst.PID == pid || (inst.Main != nil && inst.Main.PID == pid) {
		return true
	}
	for _, k := range inst.Remembered {
		if k.PID == pid {
			return true
		}
	}
	return false
}

// current reports whether id is still the service's recorded instance and
// the agent still runs: an instance a cycle replaced on purpose, or one the
// pid file no longer names, is not news.
func (a *Agent) current(name string, id proc.Identity) bool {
	a.recMu.RLock()
	closed := a.closed
	a.recMu.RUnlock()
	if closed {
		return false // the agent has stopped; the next one adopts or restarts it
	}
	if _, ok := a.replaced.LoadAndDelete(idKey(id)); ok {
		a.watched.CompareAndDelete(name, idKey(id))
		return false
	}
	cur, err := a.sup.Instance(name)
	return err != nil || idKey(cur.Identity) == idKey(id)
}

// exited is the news that the recorded instance's leader, or its whole tree,
// ended: a cycle now. gone says the caller saw every process of the tree end
// (a listing after the leader's exit found none, or a tree watch closed), so
// the cycle need not list them again (watchdog.Request.Ended).
func (a *Agent) exited(name string, id proc.Identity, how string, gone bool) {
	if !a.current(name, id) {
		a.adoptNewer(name, id)
		return
	}
	a.watched.CompareAndDelete(name, idKey(id))
	a.log.Info("service.exited", "service", name, "service_pid", id.PID, "how", how)
	req := watchdog.Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Cause: watchdog.CauseExited, Why: how}
	if gone {
		req.Ended = &id
	}
	if !a.serviceLockHeld(name) {
		a.trigger(name, req)
		return
	}
	// Another svc-ctl process holds the service's lock (a restart, stop or
	// start by hand): it is replacing or stopping this instance, and a cycle
	// now would only record lock-held. Once it lets go, the instance it left
	// is watched; if it left this one recorded, the exit is news after all.
	a.net.GoOnce("exit-after-lock:"+name, func() {
		a.act(func() {
			if !a.waitServiceLock(name) {
				return // the agent stops; the next one adopts or restarts it
			}
			switch {
			case a.current(name, id):
				a.trigger(name, req)
			case !a.adopt(name):
				// The instance it left is gone already (or cannot be watched):
				// a cycle judges it now rather than at the next interval.
				a.trigger(name, a.goneRequest(name))
			}
		})
	}, nil)
}

// adoptNewer watches the instance the pid file names when it is another
// than the one that ended (a person's start or restart replaced it before
// the end was seen here), so its exit takes the fast path too.
func (a *Agent) adoptNewer(name string, ended proc.Identity) {
	a.recMu.RLock()
	closed := a.closed
	a.recMu.RUnlock()
	if closed {
		return
	}
	if cur, err := a.sup.Instance(name); err == nil && idKey(cur.Identity) != idKey(ended) && !a.adopt(name) {
		// It is gone already too: a cycle now, not at the next interval.
		a.trigger(name, a.goneRequest(name))
	}
}

// goneRequest is the cycle to run for a recorded instance that could not
// be watched: an exit when no process of it is left, else a plain look.
func (a *Agent) goneRequest(name string) watchdog.Request {
	inst, err := a.sup.Instance(name)
	if err == nil {
		if t, err := proc.Members(inst); err == nil && t.Len() == 0 {
			return watchdog.Request{Trigger: runtrace.TriggerEvent, SkipConfirm: true, Cause: watchdog.CauseExited,
				Why: "every process of its tree exited"}
		}
	}
	return watchdog.Request{Trigger: runtrace.TriggerEvent}
}

// serviceLockHeld reports whether some cycle (another process's, or this
// agent's own) holds the service's lock right now.
func (a *Agent) serviceLockHeld(name string) bool {
	l, ok, err := state.TryLock(a.paths.Lock(name))
	if err != nil || !ok {
		return err == nil
	}
	l.Unlock()
	return false
}

// waitServiceLock waits until the service's lock is free (or as long as a
// cycle can take), and lets it go at once. It reports false when the agent
// stopped meanwhile: then nothing may follow.
func (a *Agent) waitServiceLock(name string) bool {
	wait := 2 * time.Minute
	if svc := a.config().Service(name); svc != nil {
		wait = svc.StartTimeout + svc.StopTimeout + 2*svc.Health.Timeout + svc.Health.Confirm + 30*time.Second
	}
	ctx := a.loopCtx
	if ctx == nil {
		ctx = context.Background()
	}
	l, _, err := state.WaitLock(ctx, a.paths.Lock(name), wait)
	l.Unlock()
	return err == nil || ctx.Err() == nil
}

// act runs fn, the work an exit watcher does when an instance ended, unless
// the agent has closed: the watchers outlive the loops (a service outlives
// its agent), and closeAll waits for the acts in flight, so no watcher
// writes to the ledger or creates a file in the state dir after the agent
// returned.
func (a *Agent) act(fn func()) {
	a.recMu.RLock()
	if a.closed {
		a.recMu.RUnlock()
		return
	}
	a.acts.Add(1)
	a.recMu.RUnlock()
	defer a.acts.Done()
	fn()
}

// idKey names one instance: its leader's PID and start stamp (an exec keeps
// both, so a shim that exec'd is the same key).
func idKey(id proc.Identity) string {
	return fmt.Sprintf("%d/%d/%d/%s", id.PID, id.Start, id.CreateTime, id.Boot)
}
