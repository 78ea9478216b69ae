package svcname

import (
	"regexp"
	"strings"
	"testing"
)

// The rule as it was written before it became a loop: the oracle.
var (
	nameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	cgroupRE = regexp.MustCompile(`^svc-[a-z0-9][a-z0-9._-]{0,62}-[0-9a-f]{12}$`)
)

var cases = []string{
	"", "a", "web", "Web", "-web", ".web", "_web", "web-1.2_3", "we b", "we/b", "wéb", "0",
	strings.Repeat("a", 63), strings.Repeat("a", 64), "a" + strings.Repeat("-", 62),
	"svc-web-0123456789ab", "svc-web-0123456789aB", "svc-web-0123456789a", "svc--0123456789ab",
	"svc-a-b-0123456789ab", "svc-web0123456789ab", "svc-" + strings.Repeat("a", 63) + "-0123456789ab",
	"svc-" + strings.Repeat("a", 64) + "-0123456789ab", "svc-web-0123456789abc", "svx-web-0123456789ab",
}

func TestValidAgreesWithTheRegexp(t *testing.T) {
	for _, s := range cases {
		if got, want := Valid(s), nameRE.MatchString(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
		if got, want := ValidWithSuffix(s, "svc-"), cgroupRE.MatchString(s); got != want {
			t.Errorf("ValidWithSuffix(%q, svc-) = %v, want %v", s, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s), nameRE.MatchString(s); got != want {
			t.Fatalf("Valid(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := ValidWithSuffix(s, "svc-"), cgroupRE.MatchString(s); got != want {
			t.Fatalf("ValidWithSuffix(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
