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

// CatchUp is the one run that serves the slots not run since the last one:
// after the agent was down or the host asleep, several slots coalesce into
// it.
type CatchUp struct {
	Slot      time.Time // the newest slot not run: the run's scheduled_at
	Coalesced int       // how many slots (Slot included) this one run stands for
	// OnTime: Slot is the only slot not run and it is less than grace old.
	// Nothing was missed; the run is the ordinary scheduled run, a little
	// late (trigger schedule), due whatever catch_up says. Otherwise it is a
	// catch-up (trigger catch-up), run only when catch_up = true.
	OnTime bool
}

// CatchUpSlot is the run owed for the slots in (lastCovered, now], none of
// which has a run; ok is false when there are none. lastCovered is the
// newest slot that has a run, or the job's registration if none has (zero
// means neither is known: nothing is owed). The run serves the newest slot,
// once, however many came before it.
//
// A scheduler that computes Next(now) after a restart or a wake would step
// over a slot that fell due moments earlier: call this first, and run what
// it returns.
func CatchUpSlot(s *Schedule, lastCovered, now time.Time, grace time.Duration) (CatchUp, bool) {
	if lastCovered.IsZero() {
		return CatchUp{}, false
	}
	var cu CatchUp
	for t := s.Next(lastCovered); !t.IsZero() && !t.After(now); t = s.Next(t) {
		cu.Slot = t
		cu.Coalesced++
	}
	if cu.Coalesced == 0 {
		return CatchUp{}, false
	}
	cu.OnTime = cu.Coalesced == 1 && now.Sub(cu.Slot) < grace
	return cu, true
}
