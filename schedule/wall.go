package schedule

import (
	"math"
	"time"
)

// Wall-clock arithmetic. A "wall" value is a local date and time coded as
// unix seconds as if it were UTC: wall = instant + zone offset. Within one
// zone period (between two transitions of s.Loc) the mapping is a shift by
// the offset; at a transition the wall clock jumps forward (a gap: some wall
// times never happen) or back (a fold: some wall times happen twice). robfig
// evaluates the expression on wall values in UTC, where neither exists; this
// file maps the matches back to instants, period by period.

// zone is one period of constant offset: [start, end) in unix seconds.
type zone struct {
	off        int64
	start, end int64 // math.MinInt64 / math.MaxInt64 when unbounded
}

func zoneAt(loc *time.Location, u int64) zone {
	t := time.Unix(u, 0).In(loc)
	_, off := t.Zone()
	z := zone{off: int64(off), start: math.MinInt64, end: math.MaxInt64}
	start, end := t.ZoneBounds()
	if !start.IsZero() {
		z.start = start.Unix()
	}
	if !end.IsZero() {
		z.end = end.Unix()
	}
	return z
}

// maxZones bounds the walk over zone periods in one Next: even zones with
// four transitions a year reach a slot of any satisfiable expression (at
// most 8 years away) long before this.
const maxZones = 256

// nextCron is the first slot strictly after instant a. It walks the zone
// periods from the one holding a; in each, the first matching wall time
// that maps into the period is the candidate, subject to the DST policy:
//   - entering a period through a gap, a fixed-hour schedule with a match
//     inside the gap fires at the period's first instant;
//   - a wall time already seen before a fold is skipped by fixed-hour
//     schedules (first occurrence only).
func (s *Schedule) nextCron(a int64) (int64, bool) {
	z := zoneAt(s.Loc, a)
	prevOff := z.off
	if z.start != math.MinInt64 {
		prevOff = zoneAt(s.Loc, z.start-1).off
	}
	for range maxZones {
		if u, ok, more := s.nextInZone(a, z, prevOff); !more {
			return u, ok
		}
		if z.end == math.MaxInt64 {
			return 0, false
		}
		prevOff = z.off
		z = zoneAt(s.Loc, z.end)
	}
	return 0, false
}

// nextInZone finds the first slot after a inside z. more reports that z has
// none and the search goes on in the next period.
func (s *Schedule) nextInZone(a int64, z zone, prevOff int64) (u int64, ok, more bool) {
	if s.wallClock && z.start > a && z.off > prevOff {
		// The wall times [start+prevOff, start+off) never happened: any
		// match among them runs once, at the first instant after the gap.
		if w, ok := s.wallNext(z.start + prevOff - 1); ok && w < z.start+z.off {
			return z.start, true, false
		}
	}
	q := max(a, z.start-1) // search wall times strictly after q's
	for {
		w, ok := s.wallNext(q + z.off)
		if !ok {
			return 0, false, false
		}
		u := w - z.off
		if u >= z.end {
			return 0, false, true
		}
		if s.wallClock && z.off < prevOff && w < z.start+prevOff {
			// A fold: w already happened in the previous period, and a
			// fixed-hour schedule ran it then. Resume after the repeated
			// wall times.
			q = z.start + prevOff - z.off - 1
			continue
		}
		return u, true, false
	}
}

// wallNext is the first wall time strictly after w that matches the
// expression. robfig gives up after 5 years; 29 February across a century
// year can be 8 years away, so look a little further.
func (s *Schedule) wallNext(w int64) (int64, bool) {
	t := time.Unix(w, 0).UTC()
	for range 3 {
		if n := s.spec.Next(t); !n.IsZero() {
			return n.Unix(), true
		}
		t = time.Date(t.Year()+5, time.January, 1, 0, 0, 0, 0, time.UTC).Add(-time.Second)
	}
	return 0, false
}
