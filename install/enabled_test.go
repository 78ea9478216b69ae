package install

import (
	"context"
	"testing"
	"time"
)

func TestParseSystemdTime(t *testing.T) {
	for in, want := range map[string]int64{
		"@1733000000":                 1733000000,
		"Sun 2026-11-29 23:52:13 UTC": time.Date(2026, 11, 29, 23, 52, 13, 0, time.UTC).Unix(),
		"n/a":                         0,
		"":                            0,
		"@12x":                        0,
	} {
		got := parseSystemdTime(in)
		if (want == 0) != got.IsZero() || (want != 0 && got.Unix() != want) {
			t.Errorf("parseSystemdTime(%q) = %v, want unix %d", in, got, want)
		}
	}
}

// answerRunner answers every command with the same output.
type answerRunner struct {
	out  string
	argv [][]string
}

func (a *answerRunner) run(_ context.Context, argv ...string) ([]byte, error) {
	a.argv = append(a.argv, argv)
	return []byte(a.out), nil
}

func TestEnabledSystemd(t *testing.T) {
	for out, want := range map[string]bool{"enabled\n": true, "disabled\n": false, "masked\n": false} {
		r := &answerRunner{out: out}
		on, known := enabled(context.Background(), Target{GOOS: "linux", Platform: "linux-systemd"}, Spec{User: true}, r)
		if !known || on != want {
			t.Errorf("%q: enabled = %v, %v; want %v", out, on, known, want)
		}
		if got := r.argv[0]; len(got) != 4 || got[1] != "--user" || got[2] != "is-enabled" || got[3] != "svc-ctl.service" {
			t.Errorf("argv %v", got)
		}
	}
}
