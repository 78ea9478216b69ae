package benchkit

import (
	"math"
	"testing"
	"time"
)

// TestSummarizeSteady: steady state is the median of the last minute's
// samples, CPU is per minute over the whole window, growth is the last
// minute less minute 4–5.
func TestSummarizeSteady(t *testing.T) {
	var ss []Sample
	for s := 0; s <= 600; s += 10 {
		at := time.Duration(s) * time.Second
		rss := int64(10 << 20) // 10 MiB until minute 5, then 12
		if at > 5*time.Minute {
			rss = 12 << 20
		}
		if s == 590 {
			rss = 40 << 20 // one outlier in the last minute: the median ignores it
		}
		ss = append(ss, Sample{At: at, RSS: rss, Anon: rss / 2, CPU: at / 100})
	}
	st := Steady{Samples: ss}
	summarizeSteady(&st, 10*time.Minute)
	if st.RSS != 12 || st.Anon != 6 {
		t.Errorf("steady RSS %.2f, Anon %.2f MiB; want 12 and 6 (the last minute's median)", st.RSS, st.Anon)
	}
	if math.Abs(st.CPUPerMin-600) > 0.01 {
		t.Errorf("CPU %.2f ms/min; want 600 (10 ms a second)", st.CPUPerMin)
	}
	if !st.HasGrowth || st.GrowthRSS != 2 {
		t.Errorf("growth %v %.2f MiB; want 2 (10 at minute 4–5, 12 at the end)", st.HasGrowth, st.GrowthRSS)
	}
}
