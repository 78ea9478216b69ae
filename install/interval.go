package install

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
)

// The registered interval is read back from what is registered, not from the
// config, so status shows what the OS will really do.

// Compiled at their first use: only `status` reads what is registered, and
// every other svc-ctl process (the agent above all) would build them at
// its start for nothing.
var (
	systemdActiveRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^OnUnitActiveSec=(\d+)\s*$`) })
	cronLineRe       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(\S+) (\S+) \* \* \* root `) })
	launchdIntervlRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<key>StartInterval</key>\s*<integer>(\d+)</integer>`)
	})
	taskIntervalRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<Interval>(P[0-9DTHMS]+)</Interval>`) })
	isoPartRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+)([DHMS])`) })
)

func readRegistered(p string) string {
	b, err := os.ReadFile(host.path(p))
	if err != nil {
		return ""
	}
	return string(b)
}

func (t systemdTimer) interval(context.Context, runner) time.Duration {
	m := systemdActiveRe().FindStringSubmatch(readRegistered(t.where()))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return time.Duration(n) * time.Second
}

func (c cronFile) interval(context.Context, runner) time.Duration {
	m := cronLineRe().FindStringSubmatch(readRegistered(c.where()))
	if m == nil {
		return 0
	}
	return parseCronEvery(m[1], m[2])
}

// parseCronEvery inverts cronSchedule.
func parseCronEvery(minute, hour string) time.Duration {
	switch {
	case minute == "*" && hour == "*":
		return time.Minute
	case strings.HasPrefix(minute, "*/") && hour == "*":
		n, _ := strconv.Atoi(minute[2:])
		return time.Duration(n) * time.Minute
	case minute == "0" && hour == "0":
		return 24 * time.Hour
	case minute == "0" && strings.HasPrefix(hour, "*/"):
		n, _ := strconv.Atoi(hour[2:])
		return time.Duration(n) * time.Hour
	}
	return 0
}

func (j launchdJob) interval(context.Context, runner) time.Duration {
	m := launchdIntervlRe().FindStringSubmatch(readRegistered(j.where()))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return time.Duration(n) * time.Second
}

// interval asks Task Scheduler for the task's XML (UTF-16 or the console's
// code page, depending on Windows' mood) and reads its repetition interval.
func (schedTask) interval(ctx context.Context, r runner) time.Duration {
	out, err := r.run(ctx, "schtasks.exe", "/Query", "/TN", BackstopName, "/XML", "ONE")
	if err != nil {
		return 0
	}
	m := taskIntervalRe().FindStringSubmatch(decodeMaybeUTF16(out))
	if m == nil {
		return 0
	}
	return parseISODuration(m[1])
}

func decodeMaybeUTF16(b []byte) string {
	if len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE {
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		}
		return string(utf16.Decode(u))
	}
	return string(b)
}

// parseISODuration reads the day/hour/minute/second ISO 8601 durations Task
// Scheduler writes (PT10M, PT1H30M, P1D).
func parseISODuration(s string) time.Duration {
	date, clock, _ := strings.Cut(strings.TrimPrefix(s, "P"), "T")
	var d time.Duration
	for _, part := range []struct {
		text string
		inT  bool
	}{{date, false}, {clock, true}} {
		for _, m := range isoPartRe().FindAllStringSubmatch(part.text, -1) {
			n, _ := strconv.Atoi(m[1])
			unit := map[string]time.Duration{"D": 24 * time.Hour, "H": time.Hour, "M": time.Minute, "S": time.Second}[m[2]]
			if m[2] == "M" && !part.inT {
				continue // months: never written by us
			}
			d += time.Duration(n) * unit
		}
	}
	return d
}
