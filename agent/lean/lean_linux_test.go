package lean

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestReadOnlyMappingOfNeverPicksWritable(t *testing.T) {
	exe := "/usr/local/bin/svc-ctl"
	cases := []struct {
		line string
		ok   bool
	}{
		{"00400000-00a87000 r-xp 00000000 fe:00 10025480   /usr/local/bin/svc-ctl", true},
		{"00a87000-0111c000 r--p 00687000 fe:00 10025480   /usr/local/bin/svc-ctl", true},
		{"0111c000-011ac000 rw-p 00d1c000 fe:00 10025480   /usr/local/bin/svc-ctl", false}, // its data: never
		{"011ac000-031f6000 rw-p 00000000 00:00 0", false},
		{"7f00-8f00 r-xp 00000000 fe:00 1   /usr/lib/x86_64-linux-gnu/libc.so.6", false},
		{"00400000-00a87000 r-xp 00000000 fe:00 10025480   /usr/local/bin/svc-ctl-old", false},
		{"garbage", false},
	}
	for _, c := range cases {
		if _, _, ok := readOnlyMappingOf(c.line, exe); ok != c.ok {
			t.Errorf("readOnlyMappingOf(%q) = %v, want %v", c.line, ok, c.ok)
		}
	}
}

// Trimming unmaps the executable's resident read-only pages (this test
// binary's), and the program goes on running from the page cache.
func TestTrimExecutableDropsResidentCode(t *testing.T) {
	before := exeRSS(t)
	n, err := trimExecutable()
	if err != nil || n == 0 {
		t.Fatalf("trimExecutable = %d, %v", n, err)
	}
	after := exeRSS(t)
	if after >= before {
		t.Fatalf("resident pages of the executable: %d kB before, %d kB after the trim", before, after)
	}
	t.Logf("executable resident: %d kB -> %d kB (mapped %d kB)", before, after, n>>10)
}

// exeRSS is the resident kB of this process's executable mappings.
func exeRSS(t *testing.T) int64 {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			in = len(f) >= 6 && strings.Join(f[5:], " ") == exe
		case in && len(f) == 3 && f[0] == "Rss:":
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total += kb
		}
	}
	return total
}
