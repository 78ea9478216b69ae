package agent

import (
	"svcctl/internal/redact"
	"svcctl/jobs"
)

// newJobs is the runner of the scheduled jobs (jobs) on this agent:
// its log, ledger and recorder, its L2 net, its drain.
func (a *Agent) newJobs() *jobs.Runner {
	h := jobs.Host{
		Log: a.log, Paths: a.paths, Rec: a.rec, RecordSlot: a.recordSlot,
		GoSafe: a.net.GoSafe, GoOnce: a.net.GoOnce, Draining: a.draining.Load,
		Redactor:      func() *redact.Redactor { return a.sup.Redactor() },
		CatchUpSpread: a.o.CatchUpSpread,
	}
	if a.store != nil { // a nil *Store in the interface would not read as none
		h.Store = a.store
	}
	return jobs.New(h)
}
