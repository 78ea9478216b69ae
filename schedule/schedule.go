package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zones resolve on hosts without zoneinfo (Windows); see doc.go

	"github.com/robfig/cron/v3"
)

// Schedule is a parsed cron expression bound to a time zone. It is immutable
// and safe for concurrent use.
type Schedule struct {
	Expr string         // as written in the configuration
	Loc  *time.Location // the zone the expression is read in; never nil

	spec      *cron.SpecSchedule // nil for @every; only its field bit sets are used
	wallClock bool               // fixed-hour cron: follows the wall clock across DST (see doc.go)
	every     int64              // @every interval in seconds; 0 for cron
	anchor    int64              // @every: unix seconds the slots count from
}

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("invalid schedule")

// ParseError says which expression was refused, why, and what is accepted.
type ParseError struct {
	Expr string
	Err  error // the cause; wraps ErrInvalid
}

const accepted = `accepted: 5 fields "minute hour day-of-month month day-of-week" ` +
	`(e.g. "30 9 * * *", "*/15 8-18 * * mon-fri"), or @yearly, @monthly, @weekly, @daily, @hourly, ` +
	`@every <duration> (e.g. "@every 1h30m")`

func (e *ParseError) Error() string {
	return fmt.Sprintf("schedule %q: %s; %s", e.Expr, e.Err.Error(), accepted)
}

func (e *ParseError) Unwrap() error { return e.Err }

// parser is robfig/cron's standard 5-field parser with descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// allHours is the hour field of a schedule that fires every hour.
const allHours = 1<<24 - 1

// Parse reads expr in loc. loc is required: a job's zone is always explicit
// (time.Local is allowed, written out as "Local" in the configuration).
// Errors are *ParseError and wrap ErrInvalid.
func Parse(expr string, loc *time.Location) (*Schedule, error) {
	s, err := parse(expr, loc)
	if err != nil {
		return nil, &ParseError{Expr: expr, Err: fmt.Errorf("%w: %w", ErrInvalid, err)}
	}
	return s, nil
}

func parse(expr string, loc *time.Location) (*Schedule, error) {
	if loc == nil {
		return nil, errors.New(`no time zone: set the job's timezone to an IANA name such as "Europe/Berlin", or "Local"`)
	}
	fields := strings.Fields(expr)
	if len(fields) == 0 {
		return nil, errors.New("empty expression")
	}
	if strings.Contains(fields[0], "=") {
		// Also keeps robfig's parser away from "TZ=x" without a space, on
		// which it panics.
		return nil, errors.New("a TZ= or CRON_TZ= prefix is not accepted: put the zone in the job's timezone key")
	}
	if strings.HasPrefix(fields[0], "@") {
		fields[0] = strings.ToLower(fields[0])
	}
	parsed, err := cronParser.Parse(strings.Join(fields, " "))
	if err != nil {
		return nil, err
	}
	s := &Schedule{Expr: expr, Loc: loc}
	switch p := parsed.(type) {
	case cron.ConstantDelaySchedule:
		return s, s.setEvery(fields)
	case *cron.SpecSchedule:
		return s, s.setSpec(p)
	default:
		return nil, fmt.Errorf("unsupported schedule type %T", parsed)
	}
}

// setEvery re-reads the duration itself: robfig silently turns "@every 0s"
// or "@every -1h" into one second and drops fractions of a second.
func (s *Schedule) setEvery(fields []string) error {
	d, err := time.ParseDuration(fields[len(fields)-1])
	if err != nil {
		return fmt.Errorf("@every: %w", err)
	}
	if d < time.Second {
		return fmt.Errorf("@every %v: the interval must be at least 1s", d)
	}
	if d%time.Second != 0 {
		return fmt.Errorf("@every %v: the interval must be a whole number of seconds", d)
	}
	s.every = int64(d / time.Second)
	return nil
}

// neverFiresProbe is where Parse looks for a first slot. Every satisfiable
// expression fires within 8 years of any date (29 February across a
// century year is the worst case), and 2000 is a leap year.
var neverFiresProbe = time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC).Unix()

func (s *Schedule) setSpec(p *cron.SpecSchedule) error {
	spec := *p
	spec.Location = time.UTC // only the bit sets are used (wallNext); never robfig's Next in a DST zone
	s.spec = &spec
	s.wallClock = spec.Hour&allHours != allHours
	if _, ok := s.wallNext(neverFiresProbe); !ok {
		return errors.New("never fires: no date matches (e.g. 30 February, 31 April)")
	}
	return nil
}

// WithAnchor returns a copy whose @every slots are at + k*interval, k >= 1
// (at is truncated to the second). The agent anchors at the job's
// registration. It has no effect on cron expressions.
func (s *Schedule) WithAnchor(at time.Time) *Schedule {
	c := *s
	if c.every > 0 {
		c.anchor = at.Unix()
	}
	return &c
}

// Interval is the @every interval, or 0 for a cron expression.
func (s *Schedule) Interval() time.Duration { return time.Duration(s.every) * time.Second }

// String is the expression and its zone, e.g. `"30 9 * * *" in Asia/Shanghai`.
func (s *Schedule) String() string { return fmt.Sprintf("%q in %s", s.Expr, s.Loc) }

// Next is the first slot strictly after `after`, in s.Loc. It is the zero
// time only when no slot exists within 15 years or before the year 9999.
func (s *Schedule) Next(after time.Time) time.Time {
	// Slots are whole seconds, so "strictly after" the floor of `after` is
	// strictly after `after` itself.
	a := after.Unix()
	if a >= maxWall {
		return time.Time{}
	}
	var u int64
	var ok bool
	if s.every > 0 {
		u, ok = s.nextEvery(a)
	} else {
		u, ok = s.nextCron(a)
	}
	if !ok {
		return time.Time{}
	}
	return time.Unix(u, 0).In(s.Loc)
}

func (s *Schedule) nextEvery(a int64) (int64, bool) {
	if a < s.anchor {
		return s.anchor + s.every, true
	}
	k := (a-s.anchor)/s.every + 1
	return s.anchor + k*s.every, true
}

// Slots are the slots in (from, to], oldest first, at most max of them
// (0 = no cap).
func (s *Schedule) Slots(from, to time.Time, max int) []time.Time {
	var out []time.Time
	for t := s.Next(from); !t.IsZero() && !t.After(to); t = s.Next(t) {
		out = append(out, t)
		if max > 0 && len(out) == max {
			break
		}
	}
	return out
}

// Span counts the slots in (from, to] without listing them, and gives the
// first and the last: the fast path of missing-run detection, which only
// needs the list when some slot has no run. @every is counted in closed form.
func (s *Schedule) Span(from, to time.Time) (n int, first, last time.Time) {
	first = s.Next(from)
	if first.IsZero() || first.After(to) {
		return 0, time.Time{}, time.Time{}
	}
	if s.every > 0 {
		k := (to.Unix() - first.Unix()) / s.every
		return int(k) + 1, first, time.Unix(first.Unix()+k*s.every, 0).In(s.Loc)
	}
	for t := first; !t.IsZero() && !t.After(to); t = s.Next(t) {
		n++
		last = t
	}
	return n, first, last
}
