package logcap

import (
	"context"
	"io/fs"
	"log/slog"
	"time"

	"svcctl/config"
)

// Supervisor is what the cap needs of the watchdog (*watchdog.Supervisor):
// the size past which a log is cut, the cut itself, and the log's file as
// seen in its pinned directory.
type Supervisor interface {
	CapTrigger(name string) int64
	CapLog(name string) (cut bool, err error)
	LogInfo(name string) (fs.FileInfo, error)
}

// Cap holds every service's runtime log to its log_max (Run).
type Cap struct {
	Sup Supervisor
	// Services are the services in force (a reload changes them).
	Services func() []config.Service
	// Every is the regular look's period for every log (0: logCheckWatched
	// or logCheckUnwatched, by whether the OS tells of the log's writes).
	Every time.Duration
	// Spawned names a service that got a new instance: its log is a new
	// file, watched from its first line.
	Spawned <-chan string
	Log     *slog.Logger
	// Go runs fn in a goroutine under the agent's L2 net (the watcher's
	// relay).
	Go func(ctx context.Context, name string, fn func(context.Context))
}

// capReactMin is the shortest time between two looks at one log: how soon
// a write the OS reported is followed by a look at the log's size, and the
// shortest step of the schedule below. It bounds the work a flood costs the
// agent (at most a few hundred stats a second per flooding service).
const capReactMin = 2 * time.Millisecond

// Without Options.LogCheckEvery, a quiet log's regular look comes every
// logCheckWatched while the OS tells the agent of its writes (inotify
// watches the file), else every logCheckUnwatched. A watched log's write is
// looked at within capReactMin whatever this is, and its regular look only
// trims runtime.prev.log and catches what a lost event missed. An unwatched
// log's is the bound on how long the first burst of a flood goes unseen
// (docs/benchmarks.md measures it). A timer every 500 ms was a fifth of an
// idle agent's CPU.
const (
	logCheckWatched   = 5 * time.Second
	logCheckUnwatched = 500 * time.Millisecond
)

// logEvery is the regular look's period for the log at path.
func (c *Cap) logEvery(w logWatcher, path string) time.Duration {
	switch {
	case c.Every > 0:
		return c.Every
	case w.watching(path):
		return logCheckWatched
	}
	return logCheckUnwatched
}

// capState is what the log cap loop knows of one service's log.
type capState struct {
	path    string
	limit   int64
	size    int64     // at the last look (after a cut, what was left)
	at      time.Time // the last look
	rate    float64   // bytes a second the log grew lately (fast to rise, halving when calm)
	next    time.Time // the next look
	regular time.Time // the next CapLog whatever the size (it also trims runtime.prev.log)
}

// Run holds every service's runtime log to its log_max while the
// service runs (watchdog.CapLog: the newest log_max bytes to runtime.log.1,
// the log truncated in place). What bounds the log on disk is how soon a
// cut follows its growth past log_max (a 500 ms poll let `yes` write
// 495 MB past a 1 MiB cap), so a log is looked at
//
//   - as soon as the OS says it was written (Linux: inotify IN_MODIFY;
//     logwatch_linux.go), at most every capReactMin; the watch is taken on
//     the file at the first look after each spawn (the agent's, at once),
//     and
//   - on a schedule that follows its growth: half the time it would take,
//     at the rate it grew lately, to fill what is left below log_max
//     (at least capReactMin, at most its regular look: logEvery). A quiet
//     log is looked at every logCheckWatched while inotify watches it;
//     where the OS says nothing (macOS, Windows, a file inotify cannot
//     watch) every logCheckUnwatched, so the first burst of a flood is seen
//     within it, and the flood after it on the growth schedule.
//
// One look is one stat; a cut is a copy of at most log_max bytes and an
// fsync, during which the service writes on (docs/benchmarks.md measures the
// bound this gives).
func (c *Cap) Run(ctx context.Context) {
	w := c.newLogWatcher(ctx)
	defer w.close()

	caps := map[string]*capState{} // by service name
	byPath := map[string]string{}  // log path -> service name, for the watcher's events
	timer := time.NewTimer(0)
	defer timer.Stop()
	var quietUntil time.Time // the watcher's events are not read before this (capReactMin after the last)
	for {
		now := time.Now()
		next := now.Add(max(c.Every, logCheckWatched)) // each log's own look pulls it earlier
		seen := map[string]bool{}
		services := c.Services()
		for i := range services {
			svc := &services[i]
			seen[svc.Name] = true
			st := caps[svc.Name]
			if st == nil || st.path != svc.Log || st.limit != svc.LogMax {
				if st != nil {
					w.forget(st.path)
					delete(byPath, st.path)
				}
				st = &capState{path: svc.Log, limit: svc.LogMax, at: now, next: now, regular: now}
				caps[svc.Name], byPath[svc.Log] = st, svc.Name
			}
			if !now.Before(st.next) {
				c.lookAtLog(svc, st, w, now)
			}
			next = earliest(next, st.next)
		}
		for name, st := range caps {
			if !seen[name] { // removed by a reload
				w.forget(st.path)
				delete(byPath, st.path)
				delete(caps, name)
			}
		}
		events := w.written()
		if now.Before(quietUntil) {
			events = nil
			next = earliest(next, quietUntil)
		}
		timer.Reset(max(0, time.Until(next))) // (Go 1.23+: no stale tick survives a Reset)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case name := <-c.Spawned:
			if st := caps[name]; st != nil {
				st.next = time.Now()
			}
		case path := <-events:
			if name, ok := byPath[path]; ok {
				caps[name].next = time.Now() // look now; the loop above does
			}
			quietUntil = time.Now().Add(capReactMin)
		}
	}
}

// lookAtLog stats a service's log, cuts it when it is past log_max (and
// every LogCheckEvery in any case: CapLog also trims runtime.prev.log), and
// schedules the next look by how fast it grew.
func (c *Cap) lookAtLog(svc *config.Service, st *capState, w logWatcher, now time.Time) {
	size := c.logSize(svc, w)
	every := c.logEvery(w, svc.Log)
	regular := !now.Before(st.regular)
	if regular {
		st.regular = now.Add(every)
	}
	grown := size - st.size
	if grown < 0 { // cut or replaced by someone else (a restart's rotation)
		grown = size
	}
	if dt := now.Sub(st.at).Seconds(); dt > 0 {
		r := float64(grown) / dt
		if r > st.rate {
			st.rate = r
		} else {
			st.rate = (st.rate + r) / 2
		}
	}
	if size > c.Sup.CapTrigger(svc.Name) || regular {
		if cut, _ := c.Sup.CapLog(svc.Name); cut { // errors are logged there, once
			size = c.logSize(svc, nil)
		}
	}
	st.size, st.at = size, now
	st.next = now.Add(nextLook(c.Sup.CapTrigger(svc.Name)-size, st.rate, every))
}

// nextLook is how long until a log with headroom bytes left below its cap,
// growing at rate bytes a second, must be looked at again: half the time it
// would take to fill the headroom, between capReactMin and every.
func nextLook(headroom int64, rate float64, every time.Duration) time.Duration {
	if rate <= 0 {
		return every
	}
	d := time.Duration(float64(max(headroom, 0)) / rate / 2 * float64(time.Second))
	return min(max(d, capReactMin), every)
}

// logSize is the size of the service's log (0 when there is none, or it
// is not a regular file: nothing of ours to cut), looked at in its pinned
// directory (watchdog.LogInfo); w, when set, is told which file the path
// names now, so it watches the file the service writes. (The watch is
// taken by path: it only ever wakes this loop, whose looks go through the
// pinned directory.)
func (c *Cap) logSize(svc *config.Service, w logWatcher) int64 {
	fi, err := c.Sup.LogInfo(svc.Name)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	if w != nil {
		w.follow(svc.Log, fi)
	}
	return fi.Size()
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
