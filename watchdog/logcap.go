package watchdog

import (
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/snapshot"
)

// CapLog keeps the named service's runtime log under its log_max while the
// service runs: past it, the newest log_max bytes go to runtime.log.1 and the
// log is truncated in place (snapshot.CapLog). Every cycle does it; the
// agent's cap loop calls it between cycles as the log grows (logcap).
// A log cut again within a second is in a flood: it is cut from half its cap
// on, without fsyncs (CapTrigger). Once the writes stop, at most about
// 3 x log_max stays on disk (runtime.log, runtime.log.1, runtime.prev.log).
// It reports whether it cut the log.
func (s *Supervisor) CapLog(name string) (bool, error) {
	svc := s.Config().Service(name)
	if svc == nil {
		return false, UnknownService(s.Config(), name)
	}
	return s.capLog(svc, s.Log.With("service", name))
}

func (s *Supervisor) capLog(svc *config.Service, log *slog.Logger) (bool, error) {
	unlock := s.lockLog(svc.Name)
	defer unlock()
	note := s.capNote(svc.Name)
	var o snapshot.CapOptions
	if s.flooding(note) {
		o = snapshot.CapOptions{Trigger: floodTrigger(svc.LogMax), Quick: true}
	}
	l, err := s.pinnedLog(svc)
	var c *snapshot.Capped
	if err == nil {
		c, err = snapshot.CapLogWith(l, svc.LogMax, o)
	}
	if err == nil {
		// runtime.prev.log too: a restart during a flood moves a log that
		// grew past the cap between two cuts; its newest part is the evidence.
		if trimmed, terr := snapshot.TrimFront(l.Prev(), svc.LogMax); terr != nil {
			err = terr
		} else if trimmed {
			log.Info("log.prev_trimmed", "log_max", svc.LogMax, "prev", l.Prev().Path())
		}
	}
	if s.capErrChanged(svc.Name, err) {
		if err != nil {
			log.Warn("log.cap_failed", "err", err, "hint", "the log grows past log_max until this is fixed")
		} else {
			log.Info("log.cap_recovered")
		}
	}
	if err != nil {
		return false, err
	}
	note.noted(svc, log, c, s.now())
	return c != nil, nil
}

// A log cut again within floodWithin of its last cut is in a flood: it is
// cut at half its cap (floodTrigger), without fsyncs (snapshot.CapOptions).
const floodWithin = time.Second

func (s *Supervisor) flooding(n *capNote) bool { return s.now().Sub(n.lastCut()) < floodWithin }

func floodTrigger(logMax int64) int64 { return logMax / 2 }

// LogInfo describes the named service's log as it is in its pinned
// directory (no link followed): what the agent's cap loop looks at.
func (s *Supervisor) LogInfo(name string) (fs.FileInfo, error) {
	svc := s.Config().Service(name)
	if svc == nil {
		return nil, UnknownService(s.Config(), name)
	}
	l, err := s.pinnedLog(svc)
	if err != nil {
		return nil, err
	}
	return l.Dir.Lstat(l.Name)
}

// CapTrigger is the size past which the named service's log is cut now:
// its log_max, or half of it in a flood. The agent's cap loop looks at the
// log by it.
func (s *Supervisor) CapTrigger(name string) int64 {
	svc := s.Config().Service(name)
	if svc == nil {
		return 0
	}
	if s.flooding(s.capNote(name)) {
		return floodTrigger(svc.LogMax)
	}
	return svc.LogMax
}

// capLogEvery is how often `log.capped` may be logged per service: a flood
// is cut hundreds of times a second, and agent.log must not grow with it.
const capLogEvery = time.Minute

// capNote is what a service's cuts since its last `log.capped` line were.
type capNote struct {
	mu      sync.Mutex
	lastAt  time.Time // the last line
	cutAt   time.Time // the last cut
	cuts    int       // cuts not yet in a line
	cutSize int64     // bytes those cuts took out of the log
	last    snapshot.Capped
	since   time.Time // the first of them
}

func (s *Supervisor) capNote(name string) *capNote {
	v, _ := s.capNotes.LoadOrStore(name, &capNote{})
	return v.(*capNote)
}

func (n *capNote) lastCut() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cutAt
}

// noted logs `log.capped` at most once a minute per service: the first cut
// at once, the cuts after it in one line a minute later, with their count
// and volume. c is nil when this check cut nothing; a summary that has
// waited its minute is written then.
func (n *capNote) noted(svc *config.Service, log *slog.Logger, c *snapshot.Capped, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c != nil {
		if n.cuts == 0 {
			n.since = now
		}
		n.cuts++
		n.cutSize += c.Size
		n.last = *c
		n.cutAt = now
	}
	if n.cuts == 0 || now.Sub(n.lastAt) < capLogEvery {
		return
	}
	log.Info("log.capped", "cuts", n.cuts, "cut_bytes", n.cutSize, "since", n.since, "size", n.last.Size,
		"kept", n.last.Kept, "log_max", svc.LogMax, "rotated", snapshot.RotatedPath(svc.Log))
	n.lastAt, n.cuts, n.cutSize = now, 0, 0
}

// lockLog serialises this process's size rotations of a service's log with
// the restart's rotation to runtime.prev.log. (Another process's restart is
// caught by CapLog's own check that the path still names the file it copied.)
func (s *Supervisor) lockLog(name string) (unlock func()) {
	m, _ := s.logLocks.LoadOrStore(name, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// capErrChanged remembers the last cap error of a service and reports
// whether err differs: the agent tries every half second, and one broken log
// must not fill agent.log with the same line.
func (s *Supervisor) capErrChanged(name string, err error) bool {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	prev, _ := s.capErrs.Swap(name, msg)
	p, _ := prev.(string)
	return p != msg
}
