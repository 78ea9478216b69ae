package config

import "testing"

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"50MiB": 50 << 20, "2GB": 2e9, "512KiB": 512 << 10, "1.5 GiB": 3 << 29, "4096B": 4096,
		"10 kb": 10e3, "1TiB": 1 << 40, "1,000 KB": 1e6,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"50":                      `invalid size "50": use a number with a unit, like "50MiB", "512KiB" or "2GB"`,
		"":                        `invalid size "": use a number with a unit, like "50MiB", "512KiB" or "2GB"`,
		"MiB":                     `invalid size "MiB": use a number with a unit, like "50MiB", "512KiB" or "2GB"`,
		"5 lb":                    `invalid size "5 lb": use a number with a unit, like "50MiB", "512KiB" or "2GB"`,
		"-5MiB":                   `invalid size "-5MiB": use a number with a unit, like "50MiB", "512KiB" or "2GB"`,
		"2TiB":                    `size "2TiB" is too large: the largest accepted is 1TiB`,
		"99999999999999999999EiB": `invalid size "99999999999999999999EiB": use a number with a unit, like "50MiB", "512KiB" or "2GB"`,
	}
	for in, want := range bad {
		if _, err := ParseSize(in); err == nil || err.Error() != want {
			t.Errorf("ParseSize(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, n := range []int64{50 << 20, 1000, 4096, 3 << 29, 1 << 40, 1} {
		s := FormatSize(n)
		back, err := ParseSize(s)
		if err != nil || back != n {
			t.Errorf("FormatSize(%d) = %q, parses back to %d, %v", n, s, back, err)
		}
	}
	if got := FormatSize(50 << 20); got != "50MiB" {
		t.Errorf("FormatSize(50MiB) = %q", got)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"50MiB", "2GB", "1.5 GiB", "4096B", "0KiB", "1e3MB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 || n > maxSize {
			t.Fatalf("ParseSize(%q) = %d, outside 0..1TiB", s, n)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("FormatSize(%d) = %q does not parse back: %d, %v", n, FormatSize(n), back, err)
		}
	})
}
