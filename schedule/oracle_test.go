package schedule

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

// The oracle states the DST policy per instant, by brute force over every
// minute, with no zone-period walking: an instant u is a slot when
//   - its wall time matches and (the hour field is every hour, or no earlier
//     instant had the same wall time), or
//   - the schedule has fixed hours, the clock jumps forward at u, and a
//     matching wall time lies in the gap.
//
// Matching is robfig's, evaluated in UTC (where there is no DST).
type oracle struct {
	spec      *cron.SpecSchedule
	loc       *time.Location
	everyHour bool
}

func newOracle(t *testing.T, expr string, loc *time.Location) oracle {
	t.Helper()
	p, err := cron.ParseStandard(expr)
	if err != nil {
		t.Fatalf("robfig parse %q: %v", expr, err)
	}
	spec := p.(*cron.SpecSchedule)
	spec.Location = time.UTC
	return oracle{spec: spec, loc: loc, everyHour: spec.Hour&(1<<24-1) == 1<<24-1}
}

func (o oracle) off(u int64) int64 {
	_, off := time.Unix(u, 0).In(o.loc).Zone()
	return int64(off)
}

func (o oracle) matches(w int64) bool {
	return o.spec.Next(time.Unix(w-1, 0).UTC()).Unix() == w
}

func (o oracle) seenBefore(u, w int64) bool {
	for k := int64(1); k <= 16; k++ { // offsets in force up to 4h earlier
		v := w - o.off(u-k*15*60)
		if v < u && v+o.off(v) == w {
			return true
		}
	}
	return false
}

func (o oracle) isSlot(u int64) bool {
	w := u + o.off(u)
	if o.matches(w) && (o.everyHour || !o.seenBefore(u, w)) {
		return true
	}
	if o.everyHour {
		return false
	}
	if before := o.off(u - 1); before < o.off(u) {
		for g := u + before; g < w; g += 60 {
			if o.matches(g) {
				return true
			}
		}
	}
	return false
}

func (o oracle) slots(from, to int64) []time.Time {
	var out []time.Time
	for u := (from/60 + 1) * 60; u <= to; u += 60 {
		if o.isSlot(u) {
			out = append(out, time.Unix(u, 0).In(o.loc))
		}
	}
	return out
}

// transitions are the instants in [from, to) at which loc's offset changes.
func transitions(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	for t := from.In(loc); t.Before(to); {
		_, end := t.ZoneBounds()
		end = end.In(loc)
		if end.IsZero() || !end.Before(to) {
			break
		}
		out = append(out, end)
		t = end
	}
	return out
}

var oracleExprs = []string{
	"30 2 * * *", "30 1 * * *", "0 * * * *", "30 * * * *", "*/15 * * * *", "*/7 1-3 * * *",
	"0 0 * * *", "0 2,3 * * *", "45 1,2 * * 0", "* 2 * * *", "0 */2 * * *", "15 3 * * *", "0 0 1 * *",
	"59 23 * * *", "0,30 0-4 * * *",
}

func TestAgreesWithOracleAroundTransitions(t *testing.T) {
	zones := map[string]int{ // zone -> year with transitions to test
		"America/New_York": 2026, "Europe/Berlin": 2026, "Australia/Lord_Howe": 2026,
		"America/Sao_Paulo": 2018, "America/Santiago": 2026, "Europe/Dublin": 2026,
		"Australia/Sydney": 2026, "Africa/Casablanca": 2026, "America/Havana": 2026,
	}
	for name, year := range zones {
		loc := mustLoc(t, name)
		ts := transitions(loc, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC))
		if len(ts) == 0 {
			t.Fatalf("premise: %s has no transitions in %d", name, year)
		}
		for _, tr := range ts {
			from, to := tr.Add(-26*time.Hour), tr.Add(26*time.Hour) // a daily slot on either side
			for _, expr := range oracleExprs {
				want := newOracle(t, expr, loc).slots(from.Unix(), to.Unix())
				got := mustParse(t, expr, loc).Slots(from, to, 0)
				t.Run(name+"/"+tr.UTC().Format("0102T15")+"/"+expr, func(t *testing.T) {
					assertSlots(t, loc, got, want)
				})
			}
		}
	}
}

// Away from DST (UTC, a zone without DST) robfig's own Next is right: ours
// must give the same answers.
func TestAgreesWithRobfigWithoutDST(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	exprs := append([]string{"@hourly", "@daily", "@weekly", "@monthly", "@yearly", "0 0 29 2 *",
		"5 4 * * sun", "0 9 1,15 * 1-5", "*/13 */5 */3 */2 *"}, oracleExprs...)
	for _, zone := range []string{"UTC", "Asia/Shanghai", "Asia/Kathmandu"} {
		loc := mustLoc(t, zone)
		for _, expr := range exprs {
			ours := mustParse(t, expr, loc)
			p, _ := cron.ParseStandard(expr)
			theirs := p.(*cron.SpecSchedule)
			theirs.Location = loc
			for range 50 {
				// From 1992: Kathmandu moved from +05:30 to +05:45 in 1986.
				at := time.Unix(700_000_000+rng.Int64N(3_300_000_000), rng.Int64N(1e9)).In(loc)
				if got, want := ours.Next(at), theirs.Next(at); !got.Equal(want) {
					t.Fatalf("%s %q Next(%s) = %s, robfig says %s", zone, expr, at, got, want)
				}
			}
		}
	}
}

// robfig/cron v3.0.1 evaluates in local wall-clock terms and gets both DST
// transitions wrong, which is why this package computes slots itself. If an
// upgrade fixes robfig, this test fails: keep ours, and delete it.
func TestRobfigDSTQuirksAreNotOurs(t *testing.T) {
	loc := mustLoc(t, "America/New_York")
	rob := func(expr string) *cron.SpecSchedule {
		p, _ := cron.ParseStandard(expr)
		s := p.(*cron.SpecSchedule)
		s.Location = loc
		return s
	}
	// Spring forward: robfig skips the day; we run at 03:00.
	day := time.Date(2026, 3, 8, 0, 0, 0, 0, loc)
	if got := rob("30 2 * * *").Next(day); got.Day() != 9 {
		t.Errorf("robfig now runs the skipped 02:30 on Mar %d (%s): revisit", got.Day(), got)
	}
	if got := mustParse(t, "30 2 * * *", loc).Next(day); !got.Equal(utc(2026, 3, 8, 7, 0)) {
		t.Errorf("ours: %s, want 03:00 EDT on Mar 8", got)
	}
	// Fall back: robfig runs 01:30 twice; we run it once.
	day = time.Date(2026, 11, 1, 0, 0, 0, 0, loc)
	first := rob("30 1 * * *").Next(day)
	if second := rob("30 1 * * *").Next(first); second.Sub(first) != time.Hour {
		t.Errorf("robfig no longer repeats 01:30 (%s then %s): revisit", first, second)
	}
	first = mustParse(t, "30 1 * * *", loc).Next(day)
	if second := mustParse(t, "30 1 * * *", loc).Next(first); second.Sub(first) < 24*time.Hour {
		t.Errorf("ours runs 01:30 twice: %s then %s", first, second)
	}
}
