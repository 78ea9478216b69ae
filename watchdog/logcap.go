package watchdog

import (
	"log/slog"
	"sync"

	"svcctl/config"
	"svcctl/snapshot"
)

// CapLog keeps the named service's runtime log under its log_max while the
// service runs: past it, the newest log_max bytes go to runtime.log.1 and the
// log is truncated in place (snapshot.CapLog). Every cycle does it; the agent
// also calls it between cycles, often enough that a service flooding its log
// ends with at most about 3 x log_max on disk (runtime.log, runtime.log.1,
// runtime.prev.log). It reports whether it cut the log.
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
	c, err := snapshot.CapLog(svc.Log, svc.LogMax)
	if err == nil {
		// runtime.prev.log too: a restart during a flood moves a log that
		// grew past the cap between two cuts; its newest part is the evidence.
		if trimmed, terr := snapshot.TrimFront(snapshot.PrevPath(svc.Log), svc.LogMax); terr != nil {
			err = terr
		} else if trimmed {
			log.Info("log.prev_trimmed", "log_max", svc.LogMax, "prev", snapshot.PrevPath(svc.Log))
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
	if c == nil {
		return false, nil
	}
	log.Info("log.capped", "size", c.Size, "kept", c.Kept, "log_max", svc.LogMax, "rotated", snapshot.RotatedPath(svc.Log))
	return true, nil
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
