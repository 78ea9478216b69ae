package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseAccepts(t *testing.T) {
	for _, expr := range []string{
		"30 9 * * *", "*/15 8-18 * * mon-fri", "0 0 1 jan,jul *", "0 12 * * 0", "  5   4 * * *  ",
		"0 0 29 2 *", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
		"@every 1h", "@every 90s", "@every 1h30m", "@DAILY", "@every  10m",
	} {
		s, err := Parse(expr, time.UTC)
		if err != nil {
			t.Errorf("Parse(%q): %v", expr, err)
			continue
		}
		if s.Expr != expr || s.Loc != time.UTC {
			t.Errorf("Parse(%q) kept Expr %q Loc %v", expr, s.Expr, s.Loc)
		}
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		expr, loc, want string
	}{
		{"", "UTC", "empty expression"},
		{"   ", "UTC", "empty expression"},
		{"30 9 * *", "UTC", "expected exactly 5 fields, found 4"},
		{"0 30 9 * * *", "UTC", "expected exactly 5 fields, found 6"},
		{"30 25 * * *", "UTC", "above maximum (23)"},
		{"61 * * * *", "UTC", "above maximum (59)"},
		{"* * * * mon-xyz", "UTC", "failed to parse int from xyz"},
		{"0 0 30 2 *", "UTC", "never fires"},
		{"0 0 31 4,6 *", "UTC", "never fires"},
		{"@reboot", "UTC", "unrecognized descriptor"},
		{"@every", "UTC", "unrecognized descriptor"},
		{"@every 0s", "UTC", "at least 1s"},
		{"@every -1h", "UTC", "at least 1s"},
		{"@every 1500ms", "UTC", "whole number of seconds"},
		{"@every soon", "UTC", "invalid duration"},
		{"TZ=UTC", "UTC", "TZ= or CRON_TZ= prefix"},
		{"CRON_TZ=Asia/Shanghai 30 9 * * *", "UTC", "TZ= or CRON_TZ= prefix"},
		{"30 9 * * *", "", "no time zone"},
	}
	for _, c := range cases {
		var loc *time.Location
		if c.loc != "" {
			loc = mustLoc(t, c.loc)
		}
		s, err := Parse(c.expr, loc)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.expr, s, c.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("Parse(%q) error %q does not contain %q", c.expr, msg, c.want)
		}
		// The person reading it sees which expression and what is accepted.
		if !strings.Contains(msg, `"`+c.expr+`"`) || !strings.Contains(msg, "accepted: 5 fields") {
			t.Errorf("Parse(%q) error %q does not name the expression and the accepted forms", c.expr, msg)
		}
		var pe *ParseError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &pe) || pe.Expr != c.expr {
			t.Errorf("Parse(%q) error %#v does not wrap ErrInvalid in a *ParseError", c.expr, err)
		}
	}
}

func TestZoneChangesTheAnswer(t *testing.T) {
	after := utc(2026, 1, 1, 0, 0)
	sh := mustParse(t, "30 9 * * *", mustLoc(t, "Asia/Shanghai")).Next(after)
	u := mustParse(t, "30 9 * * *", time.UTC).Next(after)
	if want := utc(2026, 1, 1, 1, 30); !sh.Equal(want) { // 09:30 CST = 01:30 UTC
		t.Errorf("Shanghai Next = %s, want %s", sh.UTC(), want)
	}
	if want := utc(2026, 1, 1, 9, 30); !u.Equal(want) {
		t.Errorf("UTC Next = %s, want %s", u.UTC(), want)
	}
	if sh.Location().String() != "Asia/Shanghai" {
		t.Errorf("Next is reported in %s, want the schedule's zone", sh.Location())
	}
}

func TestLocalWorks(t *testing.T) {
	s := mustParse(t, "30 9 * * *", time.Local)
	got := s.Next(time.Date(2026, 6, 1, 0, 5, 0, 0, time.Local))
	if l := got.In(time.Local); l.Day() != 1 || l.Hour() != 9 || l.Minute() != 30 {
		t.Fatalf("Next in Local = %s, want 09:30 local on Jun 1", l)
	}
}

func TestFirstRunIsFromRegistration(t *testing.T) {
	loc := mustLoc(t, "Asia/Shanghai")
	s := mustParse(t, "30 9 * * *", loc)
	registered := time.Date(2026, 5, 4, 0, 5, 0, 0, loc)
	if got, want := s.Next(registered), time.Date(2026, 5, 4, 9, 30, 0, 0, loc); !got.Equal(want) {
		t.Fatalf("first slot after registering at 00:05 = %s, want %s (the same day)", got, want)
	}
	// Registered after today's slot: tomorrow's.
	registered = time.Date(2026, 5, 4, 9, 30, 0, 1, loc)
	if got, want := s.Next(registered), time.Date(2026, 5, 5, 9, 30, 0, 0, loc); !got.Equal(want) {
		t.Fatalf("first slot after registering at 09:30:00.000000001 = %s, want %s", got, want)
	}
}

func TestNextIsStrictlyAfter(t *testing.T) {
	loc := mustLoc(t, "Europe/Berlin")
	s := mustParse(t, "0 12 * * *", loc)
	slot := time.Date(2026, 7, 1, 12, 0, 0, 0, loc)
	if got := s.Next(slot); !got.Equal(slot.AddDate(0, 0, 1)) {
		t.Fatalf("Next(slot) = %s, want the following day", got)
	}
	if got := s.Next(slot.Add(-time.Nanosecond)); !got.Equal(slot) {
		t.Fatalf("Next(slot-1ns) = %s, want the slot %s", got, slot)
	}
}

func TestLeapDayAcrossCentury(t *testing.T) {
	// 2100 is not a leap year: the next 29 February after 2096 is in 2104,
	// beyond robfig's 5-year search.
	s := mustParse(t, "0 0 29 2 *", time.UTC)
	if got, want := s.Next(utc(2096, 3, 1, 0, 0)), utc(2104, 2, 29, 0, 0); !got.Equal(want) {
		t.Fatalf("Next = %s, want %s", got, want)
	}
}

func TestEveryAnchoring(t *testing.T) {
	s := mustParse(t, "@every 90m", time.UTC)
	if s.Interval() != 90*time.Minute {
		t.Fatalf("Interval = %v", s.Interval())
	}
	// Unanchored: counted from the Unix epoch, so stable across restarts.
	if got, want := s.Next(utc(2026, 1, 1, 0, 10)), utc(2026, 1, 1, 1, 30); !got.Equal(want) {
		t.Fatalf("unanchored Next = %s, want %s", got, want)
	}
	reg := time.Date(2026, 1, 1, 0, 7, 3, 500, time.UTC)
	a := s.WithAnchor(reg)
	if got, want := a.Next(reg), utc(2026, 1, 1, 1, 37).Add(3*time.Second); !got.Equal(want) {
		t.Fatalf("anchored Next(registration) = %s, want %s", got, want)
	}
	if got, want := a.Next(reg.Add(-48*time.Hour)), utc(2026, 1, 1, 1, 37).Add(3*time.Second); !got.Equal(want) {
		t.Fatalf("anchored Next(before registration) = %s, want the first slot %s", got, want)
	}
	if cron := mustParse(t, "0 * * * *", time.UTC); cron.WithAnchor(reg).Next(reg) != cron.Next(reg) {
		t.Fatal("WithAnchor changed a cron schedule")
	}
}

func TestSlotsCap(t *testing.T) {
	s := mustParse(t, "*/10 * * * *", time.UTC)
	from, to := utc(2026, 1, 1, 0, 0), utc(2026, 1, 1, 1, 0)
	all := s.Slots(from, to, 0)
	if len(all) != 6 || !all[0].Equal(utc(2026, 1, 1, 0, 10)) || !all[5].Equal(to) {
		t.Fatalf("Slots (from, to] = %v, want 00:10..01:00 (6, to included, from excluded)", all)
	}
	if got := s.Slots(from, to, 2); len(got) != 2 || !got[1].Equal(utc(2026, 1, 1, 0, 20)) {
		t.Fatalf("Slots capped at 2 = %v", got)
	}
	if got := s.Slots(to, from, 0); got != nil {
		t.Fatalf("Slots with to before from = %v, want none", got)
	}
}
