package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Verdict of one package's test binary.
const (
	Pass      = "PASS"
	Fail      = "FAIL"
	Tolerated = "TOLERATED" // failed only in ways the gap list names
)

// event is one line of `go tool test2json` output.
type event struct {
	Action string
	Test   string
	Output string
}

// pkgResult is what one test binary did.
type pkgResult struct {
	Verdict              string
	Passed, Failed, Skip int
	Gaps                 map[string]int // gap name -> tolerated failed tests
	Why                  []string       // why FAIL: tests and their unexplained lines
	Skips                []string       // skipped tests with their reason
}

// testLog is what test2json said about one test (or subtest).
type testLog struct {
	action string // pass | fail | skip
	lines  []string
}

// classify reads a test2json stream and judges it. exitCode is the test
// binary's; timedOut says the harness had to kill it.
//
// A failed test is tolerated when at least one of its output lines matches a
// gap and every other line is a gap's too or provably a log (src: the
// package's test source, see logcalls.go). Anything else is a FAIL: the rule
// errs towards failing, never towards a silent pass.
func classify(r io.Reader, exitCode int, timedOut bool, src *sources) pkgResult {
	tests := map[string]*testLog{}
	var order []string
	var pkgLines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			pkgLines = append(pkgLines, sc.Text())
			continue
		}
		if e.Test == "" {
			if e.Action == "output" {
				pkgLines = append(pkgLines, strings.TrimRight(e.Output, "\r\n"))
			}
			continue
		}
		tl := tests[e.Test]
		if tl == nil {
			tl = &testLog{}
			tests[e.Test] = tl
			order = append(order, e.Test)
		}
		switch e.Action {
		case "output":
			tl.lines = append(tl.lines, strings.TrimRight(e.Output, "\r\n"))
		case "pass", "fail", "skip":
			tl.action = e.Action
		}
	}
	res := pkgResult{Gaps: map[string]int{}}
	for _, name := range order {
		tl := tests[name]
		switch tl.action {
		case "pass":
			res.Passed++
		case "skip":
			res.Skip++
			res.Skips = append(res.Skips, name+": "+skipReason(tl.lines))
		case "fail":
			res.Failed++
			judgeFailure(&res, name, tl, hasFailedSubtest(tests, name), src)
		default: // started, never finished: the binary died or hung in it
			res.Why = append(res.Why, name+": never finished")
		}
	}
	switch {
	case timedOut:
		res.Why = append(res.Why, "timed out: the harness killed the test binary")
	case exitCode != 0 && res.Failed == 0:
		res.Why = append(res.Why, fmt.Sprintf("exit code %d with no failed test: %s", exitCode, lastLines(pkgLines, 5)))
	case exitCode == 0 && res.Failed > 0:
		res.Why = append(res.Why, "tests failed but the binary exited 0")
	}
	if res.Passed+res.Failed+res.Skip == 0 && len(res.Why) == 0 {
		res.Why = append(res.Why, "ran no test")
	}
	switch {
	case len(res.Why) > 0:
		res.Verdict = Fail
	case res.Failed > 0:
		res.Verdict = Tolerated
	default:
		res.Verdict = Pass
	}
	return res
}

// judgeFailure explains one failed test by gaps, or records why it cannot.
// Each "file.go:LINE: text" line starts an entry; deeper-indented lines after
// it are the rest of its message. An entry is a gap's, a proven log (see
// logcalls.go), or unexplained; output with no call site is unexplained.
func judgeFailure(res *pkgResult, name string, tl *testLog, failedSub bool, src *sources) {
	var unexplained []string
	var gap *Gap
	inLog := false // the current entry is a log: its continuation lines are too
	for _, raw := range tl.lines {
		l := strings.TrimSpace(raw)
		if l == "" || framing(l) {
			continue
		}
		file, line, ok := site(raw)
		switch {
		case matchGap(l) != nil:
			// With or without a call site: test2json cuts a long line into
			// pieces, and only the first has the site.
			gap, inLog = matchGap(l), false
		case ok && src != nil && src.isLogSite(file, line):
			inLog = true
		case ok:
			inLog = false
			unexplained = append(unexplained, l)
		case inLog:
		default:
			unexplained = append(unexplained, l)
		}
	}
	switch {
	case len(unexplained) > 0:
		res.Why = append(res.Why, name+": "+strings.Join(unexplained, " | "))
	case gap != nil:
		res.Gaps[gap.Name]++
	case !failedSub:
		res.Why = append(res.Why, name+": failed without a failure line a gap explains")
	}
}

// framing is a line test2json or the testing package writes around a test.
func framing(l string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL", "--- PASS", "--- SKIP"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

func hasFailedSubtest(tests map[string]*testLog, name string) bool {
	for n, tl := range tests {
		if tl.action == "fail" && strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

func skipReason(lines []string) string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && !framing(l) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return "(no reason given)"
	}
	return strings.Join(out, " ")
}

func lastLines(lines []string, n int) string {
	var keep []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " | ")
}

// gapSummary is "gap-a x3, gap-b x1", sorted by name.
func gapSummary(m map[string]int) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s x%d", n, m[n])
	}
	return strings.Join(parts, ", ")
}
