package main

import (
	"fmt"
	"strings"
	"time"

	"svcctl/config"
)

// durationFlagError says why a duration flag was refused: the parser's own
// words when it could not take the value (not a duration, longer than 366d),
// else that it must be positive.
func durationFlagError(flag, v string, err error, examples string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return fmt.Errorf("%s %q: want a positive duration like %s", flag, v, examples)
}

// parseSince reads --since: a duration back from now ("40d", "2h") or a time.
func parseSince(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := config.ParseDuration(v); err == nil {
		if d < 0 {
			return time.Time{}, usageError{fmt.Errorf("--%s %q: want a positive duration", flag, v)}
		}
		return now.Add(-d), nil
	}
	return parseTimeFlag(flag, v)
}

// parseTimeFlag reads a point in time (parseInstant).
func parseTimeFlag(flag, v string) (time.Time, error) {
	t, _, err := parseInstant(flag, v, time.Now())
	return t, err
}

// instantLayouts are the forms of a time svc-ctl reads, with the width of
// the instant each names: what `runs` prints (local with its offset, or
// UTC with --utc), RFC 3339 as --json prints it (milliseconds and all), and
// what a person types, in the local zone.
var instantLayouts = []struct {
	layout string
	width  time.Duration
	local  bool
}{
	{"2006-01-02 15:04:05Z07:00", time.Second, false}, // runs, status: "2026-11-29 09:30:00+08:00", "... 01:30:00Z"
	{"2006-01-02 15:04:05", time.Second, true},
	{"2006-01-02T15:04:05", time.Second, true},
	{"2006-01-02 15:04", time.Minute, true},
	{"2006-01-02T15:04", time.Minute, true},
	{"2006-01-02", 24 * time.Hour, true},
}

// parseInstant reads a point in time and the width it names: a time typed
// to the second covers that whole second, so the row that started at
// 09:30:05.358 is the one "09:30:05" means (copied from `runs`, which prints
// seconds). RFC 3339 (fractional seconds too), the forms `runs` prints, a
// date and time in the local zone, or a time of day alone ("09:30",
// "09:30:05": today in the local zone, or yesterday if that is still to
// come).
func parseInstant(flag, v string, now time.Time) (time.Time, time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, 0, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if strings.Contains(v, ".") {
			return t, time.Millisecond, nil
		}
		return t, time.Second, nil
	}
	for _, l := range instantLayouts {
		parse := func() (time.Time, error) { return time.Parse(l.layout, v) }
		if l.local {
			parse = func() (time.Time, error) { return time.ParseInLocation(l.layout, v, time.Local) }
		}
		if t, err := parse(); err == nil {
			return t, l.width, nil
		}
	}
	for _, l := range []struct {
		layout string
		width  time.Duration
	}{{"15:04:05", time.Second}, {"15:04", time.Minute}} {
		if c, err := time.Parse(l.layout, v); err == nil {
			local := now.In(time.Local)
			t := time.Date(local.Year(), local.Month(), local.Day(), c.Hour(), c.Minute(), c.Second(), 0, time.Local)
			if t.After(now) {
				t = t.AddDate(0, 0, -1)
			}
			return t, l.width, nil
		}
	}
	return time.Time{}, 0, usageError{fmt.Errorf("--%s %q: want a time as svc-ctl prints it (2026-11-29 09:30:00+08:00, 2026-11-29T01:30:00.123Z), "+
		"a local date and time (\"2026-11-29 09:30\"), a time of day (09:30, today in the local zone), or for --since a duration back (30m, 2h, 40d)", flag, v)}
}

// fmtTime prints a time with its zone: local with offset, or UTC.
func fmtTime(t time.Time, utc bool) string {
	if t.IsZero() {
		return "-"
	}
	if utc {
		return t.UTC().Format("2006-01-02 15:04:05Z")
	}
	return t.Local().Format("2006-01-02 15:04:05-07:00")
}
