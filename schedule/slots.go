package schedule

import (
	"time"
)

// Expected are the slots that should have started by now: those in
// (max(from, registered), now-grace]. A slot before registration is never
// expected (the job did not exist), and a slot less than grace old is not yet
// late. Returns nil when both from and registered are zero: there is no
// start to count from.
func Expected(s *Schedule, registered, from, now time.Time, grace time.Duration) []time.Time {
	lo := from
	if registered.After(lo) {
		lo = registered
	}
	hi := now.Add(-grace)
	if lo.IsZero() || !hi.After(lo) {
		return nil
	}
	return s.Slots(lo, hi, 0)
}

// Missing are the expected slots that no run covers, in the order given. A
// run covers a slot when its scheduled_at is the same instant, compared in
// UTC truncated to the second (run_trace stores milliseconds).
func Missing(expected, covered []time.Time) []time.Time {
	seen := make(map[int64]struct{}, len(covered))
	for _, c := range covered {
		seen[c.Unix()] = struct{}{}
	}
	var out []time.Time
	for _, e := range expected {
		if _, ok := seen[e.Unix()]; !ok {
			out = append(out, e)
		}
	}
	return out
}

// CatchUp is the one run that stands in for slots missed while the agent was
// down or the host asleep.
type CatchUp struct {
	Slot      time.Time // the newest slot not run: the run's scheduled_at
	Coalesced int       // how many slots (Slot included) this one run stands for
}

// CatchUpSlot decides the catch-up after a gap. lastCovered is the newest
// slot that has a run (or the job's registration if none has; zero means
// neither is known and there is nothing to catch up). The slots in
// (lastCovered, now] were not run; if the oldest of them is older than
// grace, some were missed, and one run serves the newest slot for all of
// them. If every unrun slot is still within grace, ok is false: the slot is
// merely due, and the ordinary schedule runs it on time.
func CatchUpSlot(s *Schedule, lastCovered, now time.Time, grace time.Duration) (CatchUp, bool) {
	if lastCovered.IsZero() {
		return CatchUp{}, false
	}
	first := s.Next(lastCovered)
	if first.IsZero() || first.After(now.Add(-grace)) {
		return CatchUp{}, false
	}
	cu := CatchUp{Slot: first, Coalesced: 1}
	for t := s.Next(first); !t.IsZero() && !t.After(now); t = s.Next(t) {
		cu.Slot = t
		cu.Coalesced++
	}
	return cu, true
}
