package schedule

import (
	"testing"
	"time"
)

// mustLoc loads an IANA zone; the package embeds tzdata, so this works on
// any host.
func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load location %q: %v", name, err)
	}
	return loc
}

func mustParse(t testing.TB, expr string, loc *time.Location) *Schedule {
	t.Helper()
	s, err := Parse(expr, loc)
	if err != nil {
		t.Fatalf("Parse(%q): %v", expr, err)
	}
	return s
}

// utc builds a UTC instant; tests state expected slots in UTC so that the
// assertion is about the instant, not about how Go prints a zone.
func utc(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

// assertSlots compares two slot lists as instants and prints both in UTC
// and in the schedule's zone on mismatch.
func assertSlots(t *testing.T, loc *time.Location, got, want []time.Time) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d slots, want %d\n got: %s\nwant: %s", len(got), len(want), fmtSlots(got, loc), fmtSlots(want, loc))
	}
	for i := range got {
		if !got[i].Equal(want[i]) {
			t.Fatalf("slot %d: got %s, want %s\n got: %s\nwant: %s", i, fmtSlot(got[i], loc), fmtSlot(want[i], loc),
				fmtSlots(got, loc), fmtSlots(want, loc))
		}
	}
}

func fmtSlot(s time.Time, loc *time.Location) string {
	return s.UTC().Format("2006-01-02T15:04Z") + " (" + s.In(loc).Format("15:04 MST") + ")"
}

func fmtSlots(ss []time.Time, loc *time.Location) string {
	out := ""
	for _, s := range ss {
		out += fmtSlot(s, loc) + " "
	}
	return out
}

// requireTransition guards a test's premise: the local date really is a DST
// transition day in the embedded tzdata, shifting by `shift`.
func requireTransition(t *testing.T, loc *time.Location, y int, m time.Month, d int, shift time.Duration) {
	t.Helper()
	start := time.Date(y, m, d, 0, 0, 0, 0, loc)
	end := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	_, off0 := start.Zone()
	_, off1 := end.Zone()
	if got := time.Duration(off1-off0) * time.Second; got != shift {
		t.Fatalf("premise: %s %d-%02d-%02d shifts the clock by %v, want %v", loc, y, m, d, got, shift)
	}
}
