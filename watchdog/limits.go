package watchdog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/state"
)

// [service.limits]: resource limits over a service's whole tree. A tree
// over its memory limit at every sample for `for`, or whose CPU averaged
// over `for` is over its limit, is restarted with cause resource-limit
// ("memory 812 MiB > 500 MiB for 5m"). Samples are taken at every cycle and,
// in the agent, at least every 10 s while a limit is set (LimitSampleEvery).
// A resource-limit restart counts like a failed start for backoff: the
// next one waits backoff_initial, doubling to backoff_max; a calm spell
// longer than backoff_max + `for` starts the count over.

// Breach is a limit the tree has been over for its `for`.
type Breach struct {
	Words      string  `json:"words"` // "memory 812 MiB > 500 MiB for 5m"
	RSSBytes   uint64  `json:"rss_bytes"`
	CPUPercent float64 `json:"cpu_percent,omitempty"` // averaged over `for`
}

// limitTracker keeps, per service, what the samples of its current
// instance have seen.
type limitTracker struct {
	mu   sync.Mutex
	svcs map[string]*limitState
}

type limitState struct {
	key          string // the instance sampled; another one starts afresh
	memOverSince time.Time
	cpu          []cpuSample
}

type cpuSample struct {
	at   time.Time
	secs float64 // user+system CPU of the tree's live members
}

// LimitSampleEvery is how often the agent samples a service with limits
// between cycles: half its `for` (so a breach is seen within 1.5 x for),
// between 1 s and 10 s.
func LimitSampleEvery(l config.Limits) time.Duration {
	return min(max(l.For/2, time.Second), 10*time.Second)
}

// SampleLimits samples the named service's tree and returns the limit it
// has been over for its `for`, if any; held is true when a resource-limit
// restart is held off by its backoff. A service without limits, or whose
// instance is gone, gives nil.
func (s *Supervisor) SampleLimits(name string) (b *Breach, held bool) {
	svc := s.Config().Service(name)
	if svc == nil || !svc.Limits.Set() {
		return nil, false
	}
	b = s.sampleLimits(svc, s.now())
	if b == nil {
		return nil, false
	}
	st, _ := state.LoadService(s.Paths.StateFile(name))
	return b, s.now().Before(limitHoldUntil(svc, st))
}

func (s *Supervisor) sampleLimits(svc *config.Service, now time.Time) *Breach {
	inst, err := s.record(svc.Name)
	if err != nil {
		return nil
	}
	// Every member counts, those whose leader died or that left its session
	// too (remembered in the record): a Walk from them, without the lock (a
	// member seen for the first time waits in memory for the next cycle).
	t, rec, err := s.lookAt(svc, inst, proc.Walk, false)
	var tf *proc.TreeFacts
	if err == nil {
		tf, err = proc.FactsOfTree(rec, t, false)
	}
	s.limits.mu.Lock()
	defer s.limits.mu.Unlock()
	if s.limits.svcs == nil {
		s.limits.svcs = map[string]*limitState{}
	}
	key := fmt.Sprintf("%d/%d/%d/%s", inst.PID, inst.Start, inst.CreateTime, inst.Boot)
	ls := s.limits.svcs[svc.Name]
	if ls == nil || ls.key != key {
		ls = &limitState{key: key}
		s.limits.svcs[svc.Name] = ls
	}
	if err != nil {
		if errors.Is(err, proc.ErrGone) {
			delete(s.limits.svcs, svc.Name)
		}
		return nil
	}
	return ls.sample(svc.Limits, tf.RSSBytes, tf.CPUSeconds, now)
}

func (ls *limitState) sample(l config.Limits, rss uint64, cpuSecs float64, now time.Time) *Breach {
	var words []string
	b := &Breach{RSSBytes: rss}
	if l.Memory > 0 {
		switch {
		case rss <= uint64(l.Memory):
			ls.memOverSince = time.Time{}
		case ls.memOverSince.IsZero():
			ls.memOverSince = now
		}
		if !ls.memOverSince.IsZero() && now.Sub(ls.memOverSince) >= l.For {
			words = append(words, fmt.Sprintf("memory %s > %s for %s", mib(rss), mib(uint64(l.Memory)), config.FormatDuration(l.For)))
		}
	}
	if l.CPU > 0 {
		if avg, ok := ls.cpuAverage(cpuSecs, now, l.For); ok && avg > l.CPU {
			b.CPUPercent = avg
			words = append(words, fmt.Sprintf("cpu %.0f%% > %s%% for %s", avg, trimFloat(l.CPU), config.FormatDuration(l.For)))
		}
	}
	if len(words) == 0 {
		return nil
	}
	b.Words = words[0]
	if len(words) > 1 {
		b.Words += ", " + words[1]
	}
	return b
}

// cpuAverage adds a sample and returns the tree's CPU use, percent of one
// core, over the last `for` (ok once the samples span it). The tree's
// CPU time is that of its live members: when it drops (a member ended),
// the window starts again.
func (ls *limitState) cpuAverage(secs float64, now time.Time, window time.Duration) (float64, bool) {
	if n := len(ls.cpu); n > 0 && secs < ls.cpu[n-1].secs {
		ls.cpu = nil
	}
	ls.cpu = append(ls.cpu, cpuSample{at: now, secs: secs})
	// Keep the newest sample at or before now - window as the base.
	base := 0
	for i := range ls.cpu {
		if now.Sub(ls.cpu[i].at) >= window {
			base = i
		}
	}
	ls.cpu = ls.cpu[base:]
	first := ls.cpu[0]
	span := now.Sub(first.at)
	if len(ls.cpu) < 2 || span < window || span <= 0 {
		return 0, false
	}
	return (secs - first.secs) / span.Seconds() * 100, true
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func trimFloat(f float64) string { return fmt.Sprintf("%g", f) }

// limitHoldUntil is when the next resource-limit restart may happen: the
// last one plus the backoff for the count so far.
func limitHoldUntil(svc *config.Service, st state.Service) time.Time {
	if st.LimitRestarts == 0 || st.LastLimitRestart.IsZero() {
		return time.Time{}
	}
	r := svc.Restart
	return st.LastLimitRestart.Add(backoffFor(st.LimitRestarts, r.BackoffInitial, r.BackoffMax))
}

// limitRestart restarts a healthy service that has been over a limit for
// its `for` (cause resource-limit); it reports whether it did. A breach
// within the backoff of the last resource-limit restart is noted in the
// detail and left alone until the backoff ends.
func (c *cycle) limitRestart(ctx context.Context) bool {
	if !c.svc.Limits.Set() {
		return false
	}
	now := c.s.now()
	b := c.s.sampleLimits(c.svc, now)
	if b == nil {
		return false
	}
	if until := limitHoldUntil(c.svc, c.st); now.Before(until) {
		c.res.Detail.LimitHeld = fmt.Sprintf("%s; the next resource-limit restart waits for its backoff, until %s", b.Words, until.Format(time.RFC3339))
		return false
	}
	if now.Sub(c.st.LastLimitRestart) > c.svc.Restart.BackoffMax+c.svc.Limits.For {
		c.st.LimitRestarts = 0 // a calm spell: the count starts over
	}
	c.st.LimitRestarts++
	c.st.LastLimitRestart = now
	c.begin(ctx)
	c.req.Cause, c.req.Why = CauseResourceLimit, b.Words
	c.res.Detail.Limit = b
	c.st.MoveTo(state.Unhealthy, CauseResourceLimit+": "+b.Words, now)
	c.log.Warn("service.over_limit", "limit", b.Words, "restarts", c.st.LimitRestarts)
	c.restart(ctx)
	return true
}
