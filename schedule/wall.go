package schedule

import (
	"math"
	"math/bits"
	"time"
)

// Wall-clock arithmetic. A "wall" value is a local date and time coded as
// unix seconds as if it were UTC: wall = instant + zone offset. Within one
// zone period (between two transitions of s.Loc) the mapping is a shift by
// the offset; at a transition the wall clock jumps forward (a gap: some wall
// times never happen) or back (a fold: some wall times happen twice).
// wallNext matches the expression on wall values, where neither exists;
// nextCron maps the matches back to instants, period by period.

// zone is one period of constant offset: [start, end) in unix seconds.
type zone struct {
	off        int64
	start, end int64 // math.MinInt64 / math.MaxInt64 when unbounded
}

func zoneAt(loc *time.Location, u int64) zone {
	z := zoneBounds(loc, u)
	if z.end <= u {
		// golang/go#81583: beyond the explicit tz table, in a leap year,
		// ZoneBounds ends the year's last period at 31 December 00:00 UTC,
		// a day early and possibly before u. The period really runs to the
		// next one, whose start a lookup a day later reports correctly.
		next := zoneBounds(loc, u+86400)
		z.end = u + 1 // never reached in practice; keeps the walk moving
		if next.start > u {
			z.end = next.start
		}
	}
	return z
}

func zoneBounds(loc *time.Location, u int64) zone {
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
	prevOff := unknownOff // looked up only if a fold could matter
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

// unknownOff marks a previous period's offset not looked up yet.
const unknownOff int64 = math.MinInt64

// foldReach bounds how far after a period's start a wall time can repeat
// one from before it: offsets stay within ±24h.
const foldReach = 48 * 3600

// repeated reports whether wall time w of period z already happened in the
// period before (z starts with the clock set back and w is in the repeated
// range). The previous offset is looked up into *prevOff only when needed.
func (s *Schedule) repeated(z zone, w int64, prevOff *int64) bool {
	if z.start == math.MinInt64 || w-z.start >= foldReach {
		return false
	}
	if *prevOff == unknownOff {
		*prevOff = zoneAt(s.Loc, z.start-1).off
	}
	return z.off < *prevOff && w < z.start+*prevOff
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
	q := a // search wall times strictly after q's
	if z.start > a {
		q = z.start - 1
	}
	for {
		w, ok := s.wallNext(q + z.off)
		if !ok {
			return 0, false, false
		}
		u := w - z.off
		if u >= z.end {
			return 0, false, true
		}
		if s.wallClock && s.repeated(z, w, &prevOff) {
			// A fold: w already happened in the previous period, and a
			// fixed-hour schedule ran it then. Resume after the repeated
			// wall times.
			q = z.start + prevOff - z.off - 1
			continue
		}
		return u, true, false
	}
}

// Wall times are searched within years 1 to 9999: time.Time's calendar
// arithmetic is exact there.
var (
	minWall = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxWall = time.Date(9999, time.January, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// searchYears bounds wallNext: every satisfiable expression matches within
// 8 years of any date (29 February across a century year is the worst case).
const searchYears = 15

// wallNext is the first wall time strictly after w, on a whole minute, that
// matches the expression's fields. It works on robfig's parsed bit sets
// directly: robfig's own Next steps second by second and minute by minute,
// and gives up after 5 years.
func (s *Schedule) wallNext(w int64) (int64, bool) {
	if w >= maxWall {
		return 0, false
	}
	t := time.Unix(max(w, minWall), 0).UTC()
	y, mo, d := t.Date()
	h, mi, _ := t.Clock()
	mi++ // strictly after w, and slots are on :00 seconds
	lastYear := y + searchYears
	for y <= lastYear {
		if s.spec.Month&(1<<uint(mo)) == 0 || d > daysIn(y, mo) {
			y, mo = nextMonth(y, mo)
			d, h, mi = 1, 0, 0
			continue
		}
		if !s.dayMatches(y, mo, d) {
			d, h, mi = d+1, 0, 0
			continue
		}
		nh, ok := nextBit(s.spec.Hour, h, 23)
		if !ok {
			d, h, mi = d+1, 0, 0
			continue
		}
		if nh != h {
			h, mi = nh, 0
		}
		nm, ok := nextBit(s.spec.Minute, mi, 59)
		if !ok {
			h, mi = h+1, 0
			continue
		}
		return time.Date(y, mo, d, h, nm, 0, 0, time.UTC).Unix(), true
	}
	return 0, false
}

// dayMatches is cron's rule, as robfig applies it: when either day field is
// a "*", both must match; when both are restricted, either may.
func (s *Schedule) dayMatches(y int, mo time.Month, d int) bool {
	dom := s.spec.Dom&(1<<uint(d)) != 0
	dow := s.spec.Dow&(1<<uint(time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).Weekday())) != 0
	if s.spec.Dom&starBit != 0 || s.spec.Dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// starBit is robfig's marker for a field written as "*" (or "?").
const starBit = 1 << 63

// nextBit is the lowest bit of set at or above from and at or below last.
func nextBit(set uint64, from, last int) (int, bool) {
	if from > last {
		return 0, false
	}
	m := set &^ starBit >> uint(from) << uint(from)
	m &= 1<<uint(last+1) - 1
	if m == 0 {
		return 0, false
	}
	return bits.TrailingZeros64(m), true
}

func nextMonth(y int, mo time.Month) (int, time.Month) {
	if mo == time.December {
		return y + 1, time.January
	}
	return y, mo + 1
}

func daysIn(y int, mo time.Month) int {
	return time.Date(y, mo+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
