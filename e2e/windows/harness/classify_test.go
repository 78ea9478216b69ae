package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const tempDirLine = `    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\users\root\Temp\TestX1\001: Invalid function.`

// stream builds a test2json stream: each test with its output lines and
// final action.
func stream(t *testing.T, tests ...[]string) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, tc := range tests {
		name, action := tc[0], tc[1]
		enc.Encode(event{Action: "run", Test: name})
		enc.Encode(event{Action: "output", Test: name, Output: "=== RUN   " + name + "\n"})
		for _, l := range tc[2:] {
			enc.Encode(event{Action: "output", Test: name, Output: l + "\n"})
		}
		enc.Encode(event{Action: action, Test: name})
	}
	return b.String()
}

func TestClassify(t *testing.T) {
	src := parseSources("testdata/pkg")
	cases := []struct {
		name    string
		tests   [][]string
		code    int
		verdict string
		why     string
	}{
		{"all pass", [][]string{{"TestA", "pass"}, {"TestB", "skip", "    a_test.go:3: no bash"}}, 0, Pass, ""},
		{"only the gap", [][]string{{"TestA", "pass"}, {"TestX", "fail", tempDirLine}}, 1, Tolerated, ""},
		{"a log, then the gap", [][]string{{"TestLogs", "fail", "    sample_test.go:6: took 12 ms", tempDirLine}}, 1, Tolerated, ""},
		{"a helper's multi-line log, then the gap", [][]string{{"TestHelperLogs", "fail",
			"    sample_test.go:15: transcript:", "        a", tempDirLine}}, 1, Tolerated, ""},
		{"a skip, then the gap", [][]string{{"TestSkips", "fail", "    sample_test.go:40: cannot make a link here: <nil>", tempDirLine}}, 1, Tolerated, ""},
		{"a gap's long line cut by test2json", [][]string{{"TestX", "fail",
			"    x_test.go:5: port 1 is held by a process svc-ctl cannot name (GetExtendedTcpTable names no owning process (pid 0)) ...",
			`rt_holder":{"why":"GetExtendedTcpTable names no owning process (pid 0)"}}`}}, 1, Tolerated, ""},
		{"a piece of a line that names no gap", [][]string{{"TestX", "fail", tempDirLine, "ere: got 1, want 2"}}, 1, Fail, "got 1, want 2"},
		{"an error beside the gap", [][]string{{"TestErrors", "fail", "    sample_test.go:11: got 1, want 2", tempDirLine}}, 1, Fail, "got 1, want 2"},
		{"a helper that can fail", [][]string{{"TestHelperFails", "fail", "    sample_test.go:19: checking 1", tempDirLine}}, 1, Fail, "checking 1"},
		{"a helper of another package", [][]string{{"TestForeignHelper", "fail", "    sample_test.go:23: timed out", tempDirLine}}, 1, Fail, "timed out"},
		{"output without a call site", [][]string{{"TestX", "fail", "panic: boom", tempDirLine}}, 2, Fail, "panic: boom"},
		{"failed with no message", [][]string{{"TestX", "fail"}}, 1, Fail, "without a failure line"},
		{"subtests carry the gap", [][]string{{"TestP/sub", "fail", tempDirLine}, {"TestP", "fail"}}, 1, Tolerated, ""},
		{"crashed with no failed test", [][]string{{"TestA", "pass"}}, 2, Fail, "exit code 2"},
		{"never finished", [][]string{{"TestA", "run"}}, 2, Fail, "never finished"},
		{"ran nothing", nil, 0, Fail, "ran no test"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := classify(strings.NewReader(stream(t, c.tests...)), c.code, false, src)
			if res.Verdict != c.verdict {
				t.Fatalf("verdict %s, want %s (why: %q)", res.Verdict, c.verdict, res.Why)
			}
			if got := strings.Join(res.Why, "\n"); c.why != "" && !strings.Contains(got, c.why) {
				t.Errorf("why = %q, want it to name %q", got, c.why)
			}
		})
	}
}

func TestClassifyTimeoutFails(t *testing.T) {
	res := classify(strings.NewReader(stream(t, []string{"TestA", "pass"})), 0, true, nil)
	if res.Verdict != Fail || !strings.Contains(strings.Join(res.Why, " "), "timed out") {
		t.Fatalf("got %s %q, want FAIL naming the timeout", res.Verdict, res.Why)
	}
}

// Every gap names its API and matches the line it was written for.
func TestGapsAreNamed(t *testing.T) {
	lines := map[string]string{
		"removeall-posix-delete":   strings.TrimSpace(tempDirLine),
		"tcp-owner-pid":            "listeners_test.go:24: PortHolder(33825) = <nil>, port 33825 is listened on: GetExtendedTcpTable names no owning process (pid 0); want this process (pid 912)",
		"wine-client-noise":        "wine client error:348: write: Bad file descriptor",
		"attach-console":           "ctrlbreak_windows_test.go:24: StopWith(SIGBREAK) = 1 process: 1 on TerminateProcess, in 3s [], <nil>; the helper again: exit status 1: attach to the console of pid 1044: Invalid handle.",
		"scm-failure-actions-flag": "WARN  windows service settings       recovery on non-crash failures (SERVICE_CONFIG_FAILURE_ACTIONS_FLAG) not set: the service manager does not support it (Invalid level.); the SCM restarts the agent after a crash, not after an exit with an error code",
	}
	for _, g := range gaps {
		if g.API == "" || g.Name == "" {
			t.Errorf("gap %+v lacks a name or its API", g)
		}
		if got := matchGap(lines[g.Name]); got == nil || got.Name != g.Name {
			t.Errorf("gap %s does not match its own line %q", g.Name, lines[g.Name])
		}
	}
	if g := matchGap("    foo_test.go:12: Invalid function."); g != nil {
		t.Errorf("a test's own line matched gap %s", g.Name)
	}
}

// Wine's noise inside a test's line is removed (and counted); what is left
// is the test's own line, whole.
func TestStripWineNoise(t *testing.T) {
	raw := "=== RUN   TestA\nwine client error:348:     testing.go:1464: TempDir RemoveAll cleanup: x: Invalid function.\n" +
		"wine client error:1a0: write: Bad file descriptor\n--- FAIL: TestA (1.00s)\n"
	got, n := stripWineNoise([]byte(raw))
	want := "=== RUN   TestA\n    testing.go:1464: TempDir RemoveAll cleanup: x: Invalid function.\n--- FAIL: TestA (1.00s)\n"
	if string(got) != want || n != 2 {
		t.Fatalf("stripped %d:\n%s\nwant 2:\n%s", n, got, want)
	}
}
