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

// parseTimeFlag reads a point in time: RFC 3339, or "2006-01-02 15:04" /
// "2006-01-02" in the local zone.
func parseTimeFlag(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, strings.TrimSpace(v), time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageError{fmt.Errorf("--%s %q: want a duration back from now (30m, 2h, 40d) or a time (2026-11-29T09:30:00+08:00, \"2026-11-29 09:30\" local)", flag, v)}
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
