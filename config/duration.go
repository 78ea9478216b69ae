package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// day is the unit "d". A day is always 24 hours here: durations are spans of
// elapsed time, not calendar days, so a DST change does not stretch one.
const day = 24 * time.Hour

// durationHint ends every duration error: it says what to write instead.
const durationHint = "use Go syntax like 30s, 10m, 1h30m, or days like 40d"

var errDurationOverflow = errors.New("overflow")

// MaxDuration is the longest duration accepted anywhere, in the file or on
// the command line: a year and a day. Nothing svc-ctl waits for or looks
// back over is longer, and the bound keeps every time computed from a
// duration (now + interval, now - since) far from overflowing.
const MaxDuration = 366 * day

// units are time.ParseDuration's units plus "d".
var units = map[string]uint64{
	"ns": uint64(time.Nanosecond),
	"us": uint64(time.Microsecond),
	"µs": uint64(time.Microsecond), // U+00B5 micro sign
	"μs": uint64(time.Microsecond), // U+03BC Greek mu
	"ms": uint64(time.Millisecond),
	"s":  uint64(time.Second),
	"m":  uint64(time.Minute),
	"h":  uint64(time.Hour),
	"d":  uint64(day),
}

// ParseDuration parses a duration in Go syntax ("1h30m", "500ms", "-5s") or
// with a "d" unit for days ("40d", "1d12h", "1.5d"). It accepts exactly what
// time.ParseDuration accepts, plus "d". The config file and the CLI's
// duration flags (--for, --since) both use it.
func ParseDuration(s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err != nil && !errors.Is(err, errDurationOverflow) {
		return 0, fmt.Errorf("invalid duration %q: %s", s, durationHint)
	}
	if err != nil || d > MaxDuration || d < -MaxDuration {
		return 0, fmt.Errorf("duration %q is too long: the longest accepted is 366d", s)
	}
	return d, nil
}

func parseDuration(s string) (time.Duration, error) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "0" {
		return 0, nil
	}
	if s == "" {
		return 0, errors.New("empty")
	}
	var total uint64
	for s != "" {
		v, rest, err := durationTerm(s)
		if err != nil {
			return 0, err
		}
		s = rest
		total += v
		if total > 1<<63 {
			return 0, errDurationOverflow
		}
	}
	if neg {
		return -time.Duration(total), nil
	}
	if total > math.MaxInt64 {
		return 0, errDurationOverflow
	}
	return time.Duration(total), nil
}

// durationTerm parses one number-and-unit term ("1.5h") from the front of s
// and returns its value in nanoseconds.
func durationTerm(s string) (uint64, string, error) {
	if s[0] != '.' && (s[0] < '0' || s[0] > '9') {
		return 0, "", errors.New("expected a number")
	}
	whole, rest, err := leadingInt(s)
	if err != nil {
		return 0, "", err
	}
	hasWhole := len(rest) != len(s)
	var frac uint64
	scale, hasFrac := 1.0, false
	if rest != "" && rest[0] == '.' {
		before := len(rest) - 1
		frac, scale, rest = leadingFraction(rest[1:])
		hasFrac = len(rest) != before
	}
	if !hasWhole && !hasFrac {
		return 0, "", errors.New("expected digits")
	}
	i := 0
	for i < len(rest) && rest[i] != '.' && (rest[i] < '0' || rest[i] > '9') {
		i++
	}
	unit, ok := units[rest[:i]]
	if !ok {
		return 0, "", errors.New("unknown or missing unit")
	}
	if whole > 1<<63/unit {
		return 0, "", errDurationOverflow
	}
	v := whole * unit
	if frac > 0 {
		v += uint64(float64(frac) * (float64(unit) / scale))
		if v > 1<<63 {
			return 0, "", errDurationOverflow
		}
	}
	return v, rest[i:], nil
}

// leadingInt consumes leading decimal digits.
func leadingInt(s string) (uint64, string, error) {
	var x uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if x > 1<<63/10 {
			return 0, "", errDurationOverflow
		}
		x = x*10 + uint64(s[i]-'0')
		if x > 1<<63 {
			return 0, "", errDurationOverflow
		}
	}
	return x, s[i:], nil
}

// leadingFraction consumes the digits after a decimal point; digits beyond
// what fits are read and ignored, as time.ParseDuration does.
func leadingFraction(s string) (uint64, float64, string) {
	var x uint64
	scale := 1.0
	overflow := false
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if overflow {
			continue
		}
		if x > (1<<63-1)/10 {
			overflow = true
			continue
		}
		y := x*10 + uint64(s[i]-'0')
		if y > 1<<63 {
			overflow = true
			continue
		}
		x = y
		scale *= 10
	}
	return x, scale, s[i:]
}

// FormatDuration writes d the way a person would write it in the config:
// "10m" rather than "10m0s", "40d" rather than "960h0m0s", "1d12h". The
// result always parses back to d with ParseDuration.
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d == math.MinInt64:
		return d.String() // cannot be negated
	case d < 0:
		return "-" + FormatDuration(-d)
	}
	var out string
	if days := d / day; days > 0 {
		out = strconv.FormatInt(int64(days), 10) + "d"
	}
	rest := d % day
	if rest == 0 {
		return out
	}
	s := rest.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return out + s
}
