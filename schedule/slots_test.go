package schedule

import (
	"testing"
	"time"
)

func TestExpectedNeverBeforeRegistration(t *testing.T) {
	s := mustParse(t, "0 * * * *", time.UTC)
	registered := utc(2026, 1, 1, 10, 30)
	got := Expected(s, registered, utc(2026, 1, 1, 0, 0), utc(2026, 1, 1, 14, 0), 0)
	assertSlots(t, time.UTC, got, []time.Time{utc(2026, 1, 1, 11, 0), utc(2026, 1, 1, 12, 0), utc(2026, 1, 1, 13, 0), utc(2026, 1, 1, 14, 0)})

	// from later than registration narrows the window further.
	got = Expected(s, registered, utc(2026, 1, 1, 12, 0), utc(2026, 1, 1, 14, 0), 0)
	assertSlots(t, time.UTC, got, []time.Time{utc(2026, 1, 1, 13, 0), utc(2026, 1, 1, 14, 0)})
}

func TestExpectedRespectsGrace(t *testing.T) {
	s := mustParse(t, "0 * * * *", time.UTC)
	reg := utc(2026, 1, 1, 0, 0)
	grace := 5 * time.Minute
	// 14:00 is 4m59s old: not late yet.
	got := Expected(s, reg, time.Time{}, utc(2026, 1, 1, 14, 4).Add(59*time.Second), grace)
	if last := got[len(got)-1]; !last.Equal(utc(2026, 1, 1, 13, 0)) {
		t.Fatalf("newest expected slot = %s, want 13:00 (14:00 is within grace)", last.UTC())
	}
	// Exactly grace old: expected.
	got = Expected(s, reg, time.Time{}, utc(2026, 1, 1, 14, 5), grace)
	if last := got[len(got)-1]; !last.Equal(utc(2026, 1, 1, 14, 0)) {
		t.Fatalf("newest expected slot = %s, want 14:00 (exactly grace old)", last.UTC())
	}
	if len(got) != 14 {
		t.Fatalf("got %d expected slots, want 14 (01:00..14:00)", len(got))
	}
}

func TestExpectedEmpty(t *testing.T) {
	s := mustParse(t, "0 * * * *", time.UTC)
	if got := Expected(s, time.Time{}, time.Time{}, utc(2026, 1, 1, 14, 0), 0); got != nil {
		t.Fatalf("no registration and no from: got %d slots, want none", len(got))
	}
	if got := Expected(s, utc(2026, 1, 1, 14, 0), time.Time{}, utc(2026, 1, 1, 13, 0), 0); got != nil {
		t.Fatalf("registered after now: got %v, want none", got)
	}
}

func TestMissingRemovesCoveredSlots(t *testing.T) {
	loc := mustLoc(t, "Asia/Shanghai")
	s := mustParse(t, "30 9 * * *", loc)
	expected := Expected(s, time.Date(2026, 5, 1, 0, 5, 0, 0, loc), time.Time{}, time.Date(2026, 5, 5, 12, 0, 0, 0, loc), 5*time.Minute)
	if len(expected) != 5 {
		t.Fatalf("got %d expected slots, want 5 (May 1..5)", len(expected))
	}
	covered := []time.Time{
		// run_trace gives back unix ms in UTC; one with stray milliseconds.
		time.UnixMilli(expected[0].UnixMilli()).UTC(),
		time.UnixMilli(expected[2].UnixMilli() + 250).UTC(),
		expected[4].In(time.UTC),
		utc(2026, 5, 3, 9, 30), // 09:30 UTC is not 09:30 Shanghai: covers nothing
	}
	got := Missing(expected, covered)
	assertSlots(t, loc, got, []time.Time{expected[1], expected[3]})

	if got := Missing(expected, nil); len(got) != len(expected) {
		t.Fatalf("nothing covered: got %d missing, want %d", len(got), len(expected))
	}
	if got := Missing(nil, covered); got != nil {
		t.Fatalf("nothing expected: got %v missing", got)
	}
}

func TestCatchUpCoalescesAGap(t *testing.T) {
	loc := mustLoc(t, "Europe/Berlin")
	reg := time.Date(2026, 1, 1, 10, 0, 0, 0, loc)
	for _, expr := range []string{"@every 1h", "0 * * * *"} {
		s := mustParse(t, expr, loc).WithAnchor(reg)
		// Last run served 10:00; the host slept until 13:07.
		last := time.Date(2026, 1, 1, 10, 0, 0, 0, loc)
		cu, ok := CatchUpSlot(s, last, time.Date(2026, 1, 1, 13, 7, 0, 0, loc), 5*time.Minute)
		if !ok || cu.Coalesced != 3 || cu.OnTime || !cu.Slot.Equal(time.Date(2026, 1, 1, 13, 0, 0, 0, loc)) {
			t.Fatalf("%s: CatchUpSlot = %+v, %v; want 13:00 standing for 3 slots", expr, cu, ok)
		}
		// Back at 13:02: 13:00 is merely due, but 11:00 and 12:00 were
		// missed: one run, for 13:00, still stands for 3.
		cu, ok = CatchUpSlot(s, last, time.Date(2026, 1, 1, 13, 2, 0, 0, loc), 5*time.Minute)
		if !ok || cu.Coalesced != 3 || cu.OnTime || !cu.Slot.Equal(time.Date(2026, 1, 1, 13, 0, 0, 0, loc)) {
			t.Fatalf("%s: CatchUpSlot at 13:02 = %+v, %v; want 13:00 standing for 3 slots", expr, cu, ok)
		}
	}
}

func TestCatchUpNothingMissed(t *testing.T) {
	s := mustParse(t, "0 * * * *", time.UTC)
	last := utc(2026, 1, 1, 12, 0)
	if cu, ok := CatchUpSlot(s, last, utc(2026, 1, 1, 12, 59), 5*time.Minute); ok {
		t.Fatalf("no slot since the last run: got %+v", cu)
	}
	// 13:00 is 2 minutes old, inside grace: owed, but on time, not a
	// catch-up. (An agent back at 13:02 that asked Next(now) would get
	// 14:00 and lose it.)
	cu, ok := CatchUpSlot(s, last, utc(2026, 1, 1, 13, 2), 5*time.Minute)
	if !ok || !cu.OnTime || cu.Coalesced != 1 || !cu.Slot.Equal(utc(2026, 1, 1, 13, 0)) {
		t.Fatalf("only a slot within grace: got %+v, %v; want 13:00 on time", cu, ok)
	}
	// One slot, now late: a catch-up for it alone.
	cu, ok = CatchUpSlot(s, last, utc(2026, 1, 1, 13, 5), 5*time.Minute)
	if !ok || cu.OnTime || cu.Coalesced != 1 || !cu.Slot.Equal(utc(2026, 1, 1, 13, 0)) {
		t.Fatalf("one missed slot: got %+v, %v", cu, ok)
	}
	if cu, ok := CatchUpSlot(s, time.Time{}, utc(2026, 1, 1, 13, 30), 0); ok {
		t.Fatalf("nothing known about the last run: got %+v", cu)
	}
}

func TestCatchUpDailyAcrossSpringForward(t *testing.T) {
	// Down from Mar 7 evening to Mar 9 noon in New York: the Mar 8 slot
	// (02:30, moved to 03:00 by the gap) and the Mar 9 one were missed.
	loc := mustLoc(t, "America/New_York")
	s := mustParse(t, "30 2 * * *", loc)
	cu, ok := CatchUpSlot(s, time.Date(2026, 3, 7, 2, 30, 0, 0, loc), time.Date(2026, 3, 9, 12, 0, 0, 0, loc), 5*time.Minute)
	if !ok || cu.Coalesced != 2 || cu.OnTime || !cu.Slot.Equal(time.Date(2026, 3, 9, 2, 30, 0, 0, loc)) {
		t.Fatalf("CatchUpSlot = %+v, %v; want Mar 9 02:30 standing for 2", cu, ok)
	}
}

func TestStagger(t *testing.T) {
	window := time.Minute
	seconds := map[time.Duration]bool{}
	for i := range 20 {
		key := "job:" + string(rune('a'+i))
		d := Stagger(key, window)
		if d < 0 || d >= window {
			t.Fatalf("Stagger(%q) = %v, outside [0, %v)", key, d, window)
		}
		if again := Stagger(key, window); again != d {
			t.Fatalf("Stagger(%q) is not deterministic: %v then %v", key, d, again)
		}
		seconds[d.Truncate(time.Second)] = true
	}
	// 20 jobs over a minute: most start in a second of their own.
	if len(seconds) < 12 {
		t.Fatalf("20 keys fell into only %d distinct seconds", len(seconds))
	}
	if Stagger("job:a", 0) != 0 || Stagger("job:a", -time.Second) != 0 {
		t.Fatal("a window <= 0 must give no delay")
	}
}

func TestSpanAgreesWithSlots(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(30 * 24 * time.Hour) // across the spring-forward
	for _, expr := range []string{"* * * * *", "30 2 * * *", "0 * * * *", "@every 7m", "@every 1h", "0 0 30 2 *"} {
		s, err := Parse(expr, ny)
		if err != nil {
			if expr == "0 0 30 2 *" {
				continue // never fires: refused at parse
			}
			t.Fatal(err)
		}
		s = s.WithAnchor(from.Add(-90 * time.Second))
		slots := s.Slots(from, to, 0)
		n, first, last := s.Span(from, to)
		if n != len(slots) {
			t.Fatalf("%s: Span counts %d, Slots lists %d", expr, n, len(slots))
		}
		if n > 0 && (!first.Equal(slots[0]) || !last.Equal(slots[n-1])) {
			t.Fatalf("%s: Span first/last %s %s, Slots %s %s", expr, first, last, slots[0], slots[n-1])
		}
	}
}
