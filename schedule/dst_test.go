package schedule

import (
	"testing"
	"time"
)

// The DST policy (docs/schedules.md):
//   - fixed-hour schedules follow the wall clock: a slot in the skipped hour
//     runs once at the first instant after the gap; a slot in the repeated
//     hour runs once, at its first (earlier) occurrence;
//   - schedules whose hour field is every hour follow elapsed time: a wall
//     time that never happens has no slot, a wall time that happens twice
//     has two slots at distinct UTC instants;
//   - @every is a fixed interval in absolute time.
//
// 2026: New York springs forward on Mar 8 (02:00 EST -> 03:00 EDT) and falls
// back on Nov 1 (02:00 EDT -> 01:00 EST); Berlin springs forward on Mar 29
// (02:00 CET -> 03:00 CEST) and falls back on Oct 25 (03:00 CEST -> 02:00 CET).

func TestSkippedHourRunsOnceAtNextValidInstant(t *testing.T) {
	cases := []struct {
		zone       string
		y          int
		m          time.Month
		d          int
		dayBefore  time.Time // 02:30 local the day before, in UTC
		transition time.Time // 03:00 local on the transition day, in UTC
		dayAfter   time.Time // 02:30 local the day after, in UTC
	}{
		{"America/New_York", 2026, time.March, 8, utc(2026, 3, 7, 7, 30), utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 30)},
		{"Europe/Berlin", 2026, time.March, 29, utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 0), utc(2026, 3, 30, 0, 30)},
	}
	for _, c := range cases {
		t.Run(c.zone, func(t *testing.T) {
			loc := mustLoc(t, c.zone)
			requireTransition(t, loc, c.y, c.m, c.d, time.Hour)
			s := mustParse(t, "30 2 * * *", loc)

			from := time.Date(c.y, c.m, c.d-1, 0, 0, 0, 0, loc)
			to := time.Date(c.y, c.m, c.d+2, 0, 0, 0, 0, loc)
			assertSlots(t, loc, s.Slots(from, to, 0), []time.Time{c.dayBefore, c.transition, c.dayAfter})

			got := s.Next(time.Date(c.y, c.m, c.d, 0, 0, 0, 0, loc))
			if local := got.In(loc); local.Hour() != 3 || local.Minute() != 0 {
				t.Fatalf("Next on the transition day = %s, want 03:00 local", fmtSlot(got, loc))
			}
		})
	}
}

func TestSkippedHourManySlotsCollapseIntoOne(t *testing.T) {
	loc := mustLoc(t, "America/New_York")
	// 02:00, 02:15, 02:30, 02:45 do not exist on Mar 8; 03:00 is the first
	// valid instant for all four, and it runs once.
	s := mustParse(t, "*/15 2 * * *", loc)
	got := s.Slots(time.Date(2026, 3, 8, 0, 0, 0, 0, loc), time.Date(2026, 3, 8, 23, 0, 0, 0, loc), 0)
	assertSlots(t, loc, got, []time.Time{utc(2026, 3, 8, 7, 0)})

	// A slot at 03:00 itself and a skipped one at 02:00 are the same instant:
	// still one run.
	s = mustParse(t, "0 2,3 * * *", loc)
	got = s.Slots(time.Date(2026, 3, 8, 0, 0, 0, 0, loc), time.Date(2026, 3, 8, 23, 0, 0, 0, loc), 0)
	assertSlots(t, loc, got, []time.Time{utc(2026, 3, 8, 7, 0)})
}

func TestRepeatedHourRunsOnceAtFirstOccurrence(t *testing.T) {
	cases := []struct {
		zone  string
		expr  string
		y     int
		m     time.Month
		d     int
		first time.Time // the earlier UTC instant of the repeated wall time
	}{
		{"America/New_York", "30 1 * * *", 2026, time.November, 1, utc(2026, 11, 1, 5, 30)}, // 01:30 EDT
		{"Europe/Berlin", "30 2 * * *", 2026, time.October, 25, utc(2026, 10, 25, 0, 30)},   // 02:30 CEST
	}
	for _, c := range cases {
		t.Run(c.zone, func(t *testing.T) {
			loc := mustLoc(t, c.zone)
			requireTransition(t, loc, c.y, c.m, c.d, -time.Hour)
			s := mustParse(t, c.expr, loc)
			got := s.Slots(time.Date(c.y, c.m, c.d, 0, 0, 0, 0, loc), time.Date(c.y, c.m, c.d+1, 0, 0, 0, 0, loc), 0)
			assertSlots(t, loc, got, []time.Time{c.first})

			// Asked from inside the repeated hour (after the first
			// occurrence), the next slot is tomorrow's, not the repeat.
			inside := c.first.Add(90 * time.Minute)
			next := s.Next(inside)
			if want := time.Date(c.y, c.m, c.d+1, next.In(loc).Hour(), 30, 0, 0, loc); !next.Equal(want) || next.Sub(c.first) < 24*time.Hour {
				t.Fatalf("Next(%s) = %s, want tomorrow's slot", fmtSlot(inside, loc), fmtSlot(next, loc))
			}
		})
	}
}

func TestRepeatedHourMinutelyFixedHourOnce(t *testing.T) {
	loc := mustLoc(t, "America/New_York")
	s := mustParse(t, "*/20 1 * * *", loc)
	got := s.Slots(time.Date(2026, 11, 1, 0, 0, 0, 0, loc), time.Date(2026, 11, 1, 12, 0, 0, 0, loc), 0)
	assertSlots(t, loc, got, []time.Time{utc(2026, 11, 1, 5, 0), utc(2026, 11, 1, 5, 20), utc(2026, 11, 1, 5, 40)})
}

func TestHourlyAcrossRepeatedHourRunsEachUTCInstantOnce(t *testing.T) {
	for _, zone := range []string{"America/New_York", "Europe/Berlin"} {
		t.Run(zone, func(t *testing.T) {
			loc := mustLoc(t, zone)
			y, m, d := 2026, time.November, 1
			if zone == "Europe/Berlin" {
				m, d = time.October, 25
			}
			requireTransition(t, loc, y, m, d, -time.Hour)
			s := mustParse(t, "0 * * * *", loc)
			from := time.Date(y, m, d, 0, 0, 0, 0, loc).Add(-time.Second)
			to := time.Date(y, m, d+1, 0, 0, 0, 0, loc).Add(-time.Second)
			got := s.Slots(from, to, 0)
			// 25 real hours elapse on a fall-back day: 25 runs, one hour apart.
			if len(got) != 25 {
				t.Fatalf("got %d hourly slots on the fall-back day, want 25: %s", len(got), fmtSlots(got, loc))
			}
			for i := 1; i < len(got); i++ {
				if d := got[i].Sub(got[i-1]); d != time.Hour {
					t.Fatalf("slots %s and %s are %v apart, want 1h", fmtSlot(got[i-1], loc), fmtSlot(got[i], loc), d)
				}
			}
		})
	}
}

func TestHourlyAcrossSkippedHour(t *testing.T) {
	loc := mustLoc(t, "America/New_York")
	from := time.Date(2026, 3, 8, 0, 0, 0, 0, loc).Add(-time.Second)
	to := time.Date(2026, 3, 9, 0, 0, 0, 0, loc).Add(-time.Second)
	for _, expr := range []string{"0 * * * *", "30 * * * *"} {
		got := mustParse(t, expr, loc).Slots(from, to, 0)
		// 23 real hours: 23 runs, one hour apart; nothing at 02:xx (it does
		// not exist) and no extra run at 03:00 for "30 * * * *".
		if len(got) != 23 {
			t.Fatalf("%s: got %d slots on the spring-forward day, want 23: %s", expr, len(got), fmtSlots(got, loc))
		}
		for i := 1; i < len(got); i++ {
			if d := got[i].Sub(got[i-1]); d != time.Hour {
				t.Fatalf("%s: slots %s and %s are %v apart, want 1h", expr, fmtSlot(got[i-1], loc), fmtSlot(got[i], loc), d)
			}
		}
	}
}

func TestEveryIsAbsoluteAcrossDST(t *testing.T) {
	loc := mustLoc(t, "America/New_York")
	registered := time.Date(2026, 3, 1, 12, 34, 56, 0, loc)
	s := mustParse(t, "@every 1h", loc).WithAnchor(registered)
	for _, span := range [][2]time.Time{
		{time.Date(2026, 3, 7, 12, 0, 0, 0, loc), time.Date(2026, 3, 9, 12, 0, 0, 0, loc)},
		{time.Date(2026, 10, 31, 12, 0, 0, 0, loc), time.Date(2026, 11, 2, 12, 0, 0, 0, loc)},
	} {
		got := s.Slots(span[0], span[1], 0)
		// Noon to noon two local days later is 47 real hours across the
		// spring transition and 49 across the autumn one: one slot per real
		// hour, whatever the wall clock does.
		if hours := int(span[1].Sub(span[0]) / time.Hour); len(got) != hours {
			t.Fatalf("got %d slots over %d real hours, want %d", len(got), hours, hours)
		}
		for i, g := range got {
			if off := g.Sub(registered) % time.Hour; off != 0 {
				t.Fatalf("slot %d %s is not a whole number of hours after registration", i, fmtSlot(g, loc))
			}
			if i > 0 && g.Sub(got[i-1]) != time.Hour {
				t.Fatalf("slots %s and %s are not 1h apart", fmtSlot(got[i-1], loc), fmtSlot(g, loc))
			}
		}
	}
}

func TestDailyKeepsWallClockAcrossDST(t *testing.T) {
	loc := mustLoc(t, "America/New_York")
	s := mustParse(t, "0 9 * * *", loc)
	got := s.Slots(time.Date(2026, 3, 6, 12, 0, 0, 0, loc), time.Date(2026, 3, 10, 12, 0, 0, 0, loc), 0)
	assertSlots(t, loc, got, []time.Time{
		utc(2026, 3, 7, 14, 0), // 09:00 EST
		utc(2026, 3, 8, 13, 0), // 09:00 EDT: 23 real hours later
		utc(2026, 3, 9, 13, 0),
		utc(2026, 3, 10, 13, 0),
	})
}

func TestSkippedMidnight(t *testing.T) {
	// Brazil started DST at midnight until 2018: on 2018-11-04 00:00 became
	// 01:00, so a daily slot at midnight runs at 01:00 that day.
	loc := mustLoc(t, "America/Sao_Paulo")
	requireTransition(t, loc, 2018, time.November, 4, time.Hour)
	s := mustParse(t, "@daily", loc)
	got := s.Next(time.Date(2018, 11, 3, 12, 0, 0, 0, loc))
	if want := utc(2018, 11, 4, 3, 0); !got.Equal(want) {
		t.Fatalf("Next = %s, want %s (01:00 local)", fmtSlot(got, loc), fmtSlot(want, loc))
	}
}

func TestHalfHourShiftZone(t *testing.T) {
	// Lord Howe Island shifts by 30 minutes: 02:00 -> 02:30 in spring
	// (2026-10-04), 02:00 -> 01:30 in autumn (2026-04-05).
	loc := mustLoc(t, "Australia/Lord_Howe")
	requireTransition(t, loc, 2026, time.October, 4, 30*time.Minute)
	requireTransition(t, loc, 2026, time.April, 5, -30*time.Minute)

	s := mustParse(t, "15 2 * * *", loc)
	got := s.Next(time.Date(2026, 10, 4, 0, 0, 0, 0, loc))
	if l := got.In(loc); l.Day() != 4 || l.Hour() != 2 || l.Minute() != 30 {
		t.Fatalf("skipped 02:15: Next = %s, want 02:30 local on Oct 4", fmtSlot(got, loc))
	}
	s = mustParse(t, "45 1 * * *", loc)
	slots := s.Slots(time.Date(2026, 4, 5, 0, 0, 0, 0, loc), time.Date(2026, 4, 6, 0, 0, 0, 0, loc), 0)
	if len(slots) != 1 {
		t.Fatalf("repeated 01:45: got %d slots, want 1: %s", len(slots), fmtSlots(slots, loc))
	}
}

func TestZoneBoundsLeapYearBugWorkedAround(t *testing.T) {
	// golang/go#81583: in 2056 (leap, beyond the explicit tz table) Go's
	// ZoneBounds ends New York's winter period at 2056-12-31T00:00Z, before
	// the instants of that UTC day.
	loc := mustLoc(t, "America/New_York")
	at := time.Date(2056, 12, 31, 12, 0, 0, 0, time.UTC).In(loc)
	if _, end := at.ZoneBounds(); end.After(at) {
		t.Log("Go's ZoneBounds is fixed; the workaround in zoneAt is now dormant")
	}
	s := mustParse(t, "0 * * * *", loc)
	from := time.Date(2056, 12, 30, 0, 0, 0, 0, loc)
	got := s.Slots(from, from.Add(72*time.Hour), 0)
	if len(got) != 72 {
		t.Fatalf("got %d hourly slots over 72 hours across 2056-12-31, want 72", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Sub(got[i-1]) != time.Hour {
			t.Fatalf("slots %s and %s are not 1h apart", fmtSlot(got[i-1], loc), fmtSlot(got[i], loc))
		}
	}
	if got, want := mustParse(t, "0 0 29 2 *", loc).Next(time.Date(2040, 2, 29, 0, 0, 0, 0, loc)),
		time.Date(2044, 2, 29, 0, 0, 0, 0, loc); !got.Equal(want) {
		t.Fatalf("29 February: Next = %s, want %s", got, want)
	}
}
