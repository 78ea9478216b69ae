package schedule

import (
	"testing"
	"time"
)

func BenchmarkNext(b *testing.B) {
	for _, c := range []struct{ name, expr, zone string }{
		{"daily-NewYork", "30 9 * * *", "America/New_York"},
		{"minutely-Berlin", "* * * * *", "Europe/Berlin"},
		{"weekdays-UTC", "*/15 8-18 * * mon-fri", "UTC"},
		{"every-1h", "@every 1h", "Asia/Shanghai"},
	} {
		s := mustParse(b, c.expr, mustLoc(b, c.zone))
		// Start points spread over a year (both DST transitions), 7h07m apart.
		starts := make([]time.Time, 1231)
		for i := range starts {
			starts[i] = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 427 * time.Minute)
		}
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				s.Next(starts[i%len(starts)])
				i++
			}
		})
	}
}

// 40 days (the default retention) of a minutely job: the work `svc-ctl
// missing` does per job, ~57,600 slots, across a DST transition.
func BenchmarkExpected40Days(b *testing.B) {
	loc := mustLoc(b, "Europe/Berlin")
	s := mustParse(b, "* * * * *", loc)
	now := time.Date(2026, 4, 20, 12, 0, 0, 0, loc)
	from := now.Add(-40 * 24 * time.Hour)
	var n int
	for b.Loop() {
		n = len(Expected(s, from, from, now, 5*time.Minute))
	}
	b.ReportMetric(float64(n), "slots")
}
