package watchdog

import (
	"testing"
	"time"

	"svcctl/config"
)

// TestLimitSampleWindow: a memory breach needs every sample over the limit
// for `for` (one sample under starts it over); a CPU breach is the average
// over `for`, judged only once the samples span it, and a tree whose CPU
// time drops (a member ended) starts its window again.
func TestLimitSampleWindow(t *testing.T) {
	l := config.Limits{Memory: 100 << 20, CPU: 90, For: 10 * time.Second}
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	var ls limitState
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	steps := []struct {
		s    int
		rss  uint64
		cpu  float64
		want string
	}{
		{0, 120 << 20, 0, ""},
		{5, 120 << 20, 2, ""},
		{8, 90 << 20, 3, ""}, // under: the memory window starts over
		{9, 120 << 20, 3.5, ""},
		{15, 130 << 20, 6, ""},
		{19, 130 << 20, 9, "memory 130 MiB > 100 MiB for 10s"}, // over since 9 s; CPU 9-3.5 s over 10 s: 55%
		{25, 80 << 20, 20, "cpu 140% > 90% for 10s"},           // base: the sample at 15 s; 14 s of CPU over 10 s
		{30, 80 << 20, 1, ""},                                  // a member ended: its CPU time left the sum
		{41, 80 << 20, 12, "cpu 100% > 90% for 10s"},           // 11 s over 11 s
	}
	for _, st := range steps {
		b := ls.sample(l, st.rss, st.cpu, at(st.s))
		got := ""
		if b != nil {
			got = b.Words
		}
		if got != st.want {
			t.Fatalf("at %ds: %q, want %q", st.s, got, st.want)
		}
	}
}
