package benchkit

import "testing"

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		in               []float64
		median, min, max float64
	}{
		{[]float64{5, 1, 3}, 3, 1, 5},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
		{[]float64{7}, 7, 7, 7},
	} {
		s := Summarize(tc.in)
		if s.Median != tc.median || s.Min != tc.min || s.Max != tc.max || s.N != len(tc.in) {
			t.Errorf("Summarize(%v) = %+v, want median %v range %v-%v", tc.in, s, tc.median, tc.min, tc.max)
		}
	}
	if s := Summarize(nil); s.N != 0 {
		t.Errorf("Summarize(nil) = %+v", s)
	}
}
