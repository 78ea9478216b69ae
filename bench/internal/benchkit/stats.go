package benchkit

import (
	"fmt"
	"slices"
	"time"
)

// Summary is the median and range of a figure over trials.
type Summary struct {
	Median, Min, Max float64
	N                int
}

// Summarize returns the median (mean of the middle two for an even count)
// and range of xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	m := s[n/2]
	if n%2 == 0 {
		m = (s[n/2-1] + s[n/2]) / 2
	}
	return Summary{Median: m, Min: s[0], Max: s[n-1], N: n}
}

// Format prints "12.3 ms (range 10.1–15.2, n=5)" with the given unit and
// number of decimals.
func (s Summary) Format(unit string, decimals int) string {
	return fmt.Sprintf("%.*f %s (range %.*f–%.*f, n=%d)", decimals, s.Median, unit, decimals, s.Min, decimals, s.Max, s.N)
}

// Ms converts a duration to float milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Figure prints one result line: "figure: summary   [aim: ...]".
func Figure(name string, s Summary, unit string, decimals int, aim string) {
	line := fmt.Sprintf("%-66s %s", name+":", s.Format(unit, decimals))
	if aim != "" {
		line += "   aim " + aim
	}
	fmt.Println(line)
}
