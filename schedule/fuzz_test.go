package schedule

import (
	"testing"
	"time"
)

var fuzzZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Sao_Paulo",
	"Asia/Shanghai", "Africa/Casablanca", "Europe/Dublin", "Pacific/Apia", "America/Santiago"}

// FuzzParse: Parse never panics, and for a valid expression Next(t) is
// strictly after t and strictly increasing over 20 steps, from any instant in
// 1900..2200 in a zone with or without DST.
func FuzzParse(f *testing.F) {
	for _, e := range append(oracleExprs, "@every 1h", "@daily", "@every 1s", "TZ=UTC", "CRON_TZ=", "0 0 29 2 *",
		"*/0 * * * *", "1-2-3 * * * *", "@every 100000h", "0 0 31 * *", "* * * * 7", "0 0 * * mon,fri") {
		f.Add(e, int64(1_773_000_000), uint8(1))
	}
	locs := make([]*time.Location, len(fuzzZones))
	for i, z := range fuzzZones {
		locs[i] = mustLoc(f, z)
	}
	lo := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, expr string, at int64, zone uint8) {
		loc := locs[int(zone)%len(locs)]
		s, err := Parse(expr, loc)
		if err != nil {
			return
		}
		if at < lo || at > hi {
			at = lo + (at%(hi-lo)+(hi-lo))%(hi-lo)
		}
		prev := time.Unix(at, 0)
		for i := range 20 {
			next := s.Next(prev)
			if next.IsZero() {
				t.Fatalf("%s: Next(%s) is zero at step %d", s, prev.UTC(), i)
			}
			if !next.After(prev) {
				t.Fatalf("%s: Next(%s) = %s is not after it (step %d)", s, prev.UTC(), next.UTC(), i)
			}
			prev = next
		}
	})
}
