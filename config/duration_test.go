package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"0s", 0},
		{"30s", 30 * time.Second},
		{"10m", 10 * time.Minute},
		{"1h30m", 90 * time.Minute},
		{"500ms", 500 * time.Millisecond},
		{"1.5h", 90 * time.Minute},
		{"40d", 40 * 24 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"1.5d", 36 * time.Hour},
		{".5d", 12 * time.Hour},
		{"-5s", -5 * time.Second},
		{"+1d", 24 * time.Hour},
		{"2µs", 2 * time.Microsecond},
		{"366d", 366 * day},
		{"-366d", -366 * day},
		{"365d23h59m", 365*day + 23*time.Hour + 59*time.Minute},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "d", "1", "2x", "1D", "1 d", "1dd", "-", ".d", "1d-1h", "10 m"} {
		_, err := ParseDuration(bad)
		if err == nil {
			t.Errorf("ParseDuration(%q) accepted, want an error", bad)
			continue
		}
		want := `invalid duration "` + bad + `": use Go syntax like 30s, 10m, 1h30m, or days like 40d`
		if err.Error() != want {
			t.Errorf("ParseDuration(%q) error %q, want %q", bad, err, want)
		}
	}
}

// TestParseDurationCap: "106751d" once passed config
// check and overflowed later (now + interval). Nothing above 366d is
// accepted, with one clear message, also where it would overflow int64.
func TestParseDurationCap(t *testing.T) {
	for _, long := range []string{"367d", "366d1ns", "-367d", "106751d", "106751d23h47m16.854775807s",
		"106752d", "9223372036854775807ns", "99999999999999999999h", "8784h1s"} {
		_, err := ParseDuration(long)
		want := `duration "` + long + `" is too long: the longest accepted is 366d`
		if err == nil || err.Error() != want {
			t.Errorf("ParseDuration(%q) error = %v, want %q", long, err, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},
		{10 * time.Minute, "10m"},
		{time.Hour, "1h"},
		{90 * time.Minute, "1h30m"},
		{40 * day, "40d"},
		{36 * time.Hour, "1d12h"},
		{day + time.Second, "1d1s"},
		{1500 * time.Millisecond, "1.5s"},
		{500 * time.Millisecond, "500ms"},
		{-2 * time.Hour, "-2h"},
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.in); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseDuration: ParseDuration never panics, agrees with
// time.ParseDuration wherever no "d" is involved, and whatever it accepts
// survives FormatDuration and back.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "40d", "1d12h", "1.5h", "-5s", "2x", "9223372036854775807ns", "106751d23h47m16.854775808s", ".5d", "1µs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && (d > MaxDuration || d < -MaxDuration) {
			t.Fatalf("ParseDuration(%q) = %v, beyond 366d", s, d)
		}
		if !strings.Contains(s, "d") {
			sd, serr := time.ParseDuration(s)
			if serr == nil && (sd > MaxDuration || sd < -MaxDuration) {
				return // refused by the cap, by design
			}
			if (err == nil) != (serr == nil) || (err == nil && d != sd) {
				t.Fatalf("ParseDuration(%q) = %v, %v; time.ParseDuration = %v, %v", s, d, err, sd, serr)
			}
		}
		if err != nil {
			return
		}
		back, err := ParseDuration(FormatDuration(d))
		if err != nil || back != d {
			t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, d, FormatDuration(d), back, err)
		}
	})
}
