package svcctl_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The rooms of docs/architecture.md ("Packages: one room per idea") and
// their floors: a package may import
// a package on a lower floor (a higher number), never one on its own floor or
// above, except for the arrows listed in sideways. Arrows point down only:
//
//	cmd -> {agent, report, ui, install} -> {watchdog, notify, control} -> state
//	    -> {probe, proc, snapshot, runtrace, schedule} -> config
var floors = map[string]int{
	"svcctl/cmd/svc-ctl": 0,

	"svcctl/agent":   1,
	"svcctl/report":  1,
	"svcctl/ui":      1,
	"svcctl/install": 1,

	"svcctl/watchdog": 2,
	"svcctl/notify":   2,
	"svcctl/control":  2, // the command line's requests to the running agent

	// What the agent runs that is not its lifecycle: packages of their own
	// beside it, driven by it through a narrow interface, never calling it.
	"svcctl/jobs":    2, // the scheduled jobs: their loops, and the one definition of a run
	"svcctl/metrics": 2, // the agent's counters, for /metrics and an otlp channel
	"svcctl/logcap":  2, // every service's runtime log held to its log_max; the watchdog cuts

	// The agent's lifecycle parts, each an idea of its own with a narrow
	// interface; the agent drives them, they never call it.
	"svcctl/agent/agentlog":   2, // where the agent's own log lines go, redacted once
	"svcctl/agent/reloadplan": 2, // what a reload changes, key by key; the agent acts on it
	"svcctl/agent/lean":       2, // an idle agent kept small: runtime settings, the trim
	"svcctl/agent/scope":      2, // an agent started by hand moved into a delegated systemd scope
	"svcctl/agent/selfping":   2, // the agent's own dead man's switch ([agent] ping)
	"svcctl/agent/reaper":     2, // the ledger's rows that cannot finish any more judged; old ones pruned
	"svcctl/agent/requests":   2, // the command line's requests taken at each wake, one handler per kind
	"svcctl/agent/ledger":     2, // the agent's recording path: the queue before run_trace, rows lost or spilled, agent.status
	"svcctl/agent/sleep":      2, // the host slept: the wall clock and the monotonic clock disagree
	"svcctl/agent/l2":         2, // the L2 safety net: every goroutine under one recover wrapper, crash.log
	"svcctl/agent/startcheck": 2, // `svc-ctl verify` once at the agent's start; a FAIL is told

	// state is a floor of its own: the state directory's files record the
	// values of the floor below (a probe's results, snapshot transitions,
	// runtrace's verdict words and ledger health), so it sits above the
	// packages that make them and below every package that reads or writes
	// the state directory. Nothing below imports it.
	"svcctl/state": 3,

	"svcctl/probe":    4,
	"svcctl/proc":     4,
	"svcctl/snapshot": 4,
	"svcctl/runtrace": 4,
	"svcctl/schedule": 4,
	"svcctl/winsvc":   4, // Windows-only pieces of L1, below install

	"svcctl/config": 5,

	"svcctl/contrib": 6, // the example config, embedded: imports nothing of svc-ctl
}

// sideways are the arrows between packages of one floor that the design
// allows, each with its reason.
var sideways = map[[2]string]string{
	{"svcctl/config", "svcctl/schedule"}:                   "config validates job schedules with the parser the agent uses, so `config check` and the agent never disagree",
	{"svcctl/probe", "svcctl/config"}:                      "", // down a floor: listed only to say probe reads its specs from config
	{"svcctl/internal/testsvc", "svcctl/internal/demosvc"}: "the tests' service is the demo service plus faults",
	{"svcctl/metrics", "svcctl/notify"}:                    "an otlp channel takes the counters as notify's MetricPoint, the one type its exporter reads",
	{"svcctl/jobs", "svcctl/control"}:                      "a person's run of a job answers the request it came with (control's Request, Response, its stream file)",
	{"svcctl/agent/selfping", "svcctl/notify"}:             "the agent's own ping is sent as every ping is (notify.Ping: signals, retries, what is permanent)",
	{"svcctl/agent/requests", "svcctl/control"}:            "the agent's side of control: it takes, answers and sweeps control's requests",
	{"svcctl/agent/requests", "svcctl/watchdog"}:           "a person's verb handed to the agent is the watchdog's work, as from a shell",
	{"svcctl/ui", "svcctl/report"}:                         "the page draws report's answers (status, why, missing, verify): one definition of each, printed or drawn",
}

// Packages under svcctl/internal/ are helpers any package may import (one
// home for an idea several rooms share: redact, fsutil...); a helper imports
// no room, only other helpers. testOnly helpers are for tests and bench.
var testOnly = []string{"svcctl/internal/testutil", "svcctl/internal/testkit", "svcctl/internal/testenv", "svcctl/internal/testsvc", "svcctl/internal/redact/redacttest"}

// thirdParty is what the leaves may import from outside the standard
// library (import path prefixes); a leaf not listed here may import none.
// Packages above the leaves are not limited here.
var thirdParty = map[string][]string{
	"svcctl/runtrace": {"modernc.org/sqlite"},
	"svcctl/schedule": {"github.com/robfig/cron/v3"},
	"svcctl/snapshot": nil,
	"svcctl/probe":    {"golang.org/x/net/http/httpproxy", "golang.org/x/sys/"},
	"svcctl/proc":     {"golang.org/x/sys/", "github.com/shirou/gopsutil/v4/", "github.com/tklauser/go-sysconf"},
	"svcctl/state":    {"github.com/gofrs/flock"},
	"svcctl/watchdog": nil,
	"svcctl/control":  {"golang.org/x/sys/"},
	"svcctl/winsvc":   {"golang.org/x/sys/"},
	"svcctl/config":   {"github.com/pelletier/go-toml/v2", "github.com/robfig/cron/v3", "github.com/dustin/go-humanize", "golang.org/x/sys/"},
	"svcctl/contrib":  nil,
}

// TestArrowsPointDown holds the import graph of every package, on every OS
// svc-ctl builds for, to the table above (go list -deps). An arrow that is
// not in it fails the test: add it to docs/architecture.md first, then here.
func TestArrowsPointDown(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}}:{{join .Imports " "}}{{end}}`, "./...")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			pkg, imps, _ := strings.Cut(line, ":")
			if !strings.HasPrefix(pkg, "svcctl/") {
				continue
			}
			seen[pkg] = true
			for _, imp := range strings.Fields(imps) {
				if why := forbidden(pkg, imp); why != "" {
					t.Errorf("GOOS=%s: %s imports %s: %s", goos, pkg, imp, why)
				}
			}
		}
		for room := range floors {
			if !seen[room] {
				t.Errorf("GOOS=%s: go list did not see %s: is the table out of date?", goos, room)
			}
		}
	}
}

// forbidden says why pkg may not import imp, or "" when it may.
func forbidden(pkg, imp string) string {
	if !strings.HasPrefix(imp, "svcctl/") {
		return forbiddenThirdParty(pkg, imp)
	}
	if under(pkg, "svcctl/bench", "svcctl/e2e", "svcctl/internal/tools") || under(pkg, testOnly...) {
		return "" // tools and test helpers may use anything; nothing imports them (checked below)
	}
	switch {
	case under(imp, "svcctl/bench", "svcctl/e2e", "svcctl/cmd", "svcctl/internal/tools"):
		return "nothing imports a command, a benchmark, an end-to-end harness or a developer's tool (internal/tools)"
	case contains(testOnly, imp):
		return "a test helper is for tests only: it must not be linked into svc-ctl"
	case under(imp, "svcctl/internal"):
		return ""
	case under(pkg, "svcctl/internal"):
		return "an internal helper imports no room of svc-ctl, only other helpers"
	case strings.HasPrefix(pkg, imp+"/internal/"):
		return "" // a room's own internal program, like runtrace/internal/rtload
	}
	if _, ok := sideways[[2]string{pkg, imp}]; ok {
		return ""
	}
	from, okFrom := floorOf(pkg)
	to, okTo := floorOf(imp)
	switch {
	case !okFrom:
		return "the importer is not in the layering table (docs/architecture.md, \"Packages: one room per idea\"): add it there and to floors"
	case !okTo:
		return "the imported package is not in the layering table (docs/architecture.md, \"Packages: one room per idea\"): add it there and to floors"
	case to <= from:
		return "arrows point down only (docs/architecture.md, \"Packages: one room per idea\"); this one points up or sideways"
	}
	return ""
}

func forbiddenThirdParty(pkg, imp string) string {
	first, _, _ := strings.Cut(imp, "/")
	if !strings.Contains(first, ".") {
		return "" // the standard library
	}
	allowed, limited := thirdParty[pkg]
	if !limited || hasPrefix(imp, allowed) {
		return ""
	}
	return "this package may import only " + strings.Join(sorted(allowed), ", ") + " besides the standard library"
}

// floorOf is the floor of pkg or of the room it belongs to (a package under
// another, like runtrace/internal/rtload, shares its floor).
func floorOf(pkg string) (int, bool) {
	for p := pkg; p != "svcctl"; p = p[:strings.LastIndex(p, "/")] {
		if f, ok := floors[p]; ok {
			return f, true
		}
	}
	return 0, false
}

func under(pkg string, roots ...string) bool {
	for _, r := range roots {
		if pkg == r || strings.HasPrefix(pkg, r+"/") {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"nothing"}
	}
	return out
}

// TestLayeringTableCatchesAnUpwardArrow: the checker itself fails the arrows
// it must, so a table that allows everything cannot pass unseen.
func TestLayeringTableCatchesAnUpwardArrow(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"svcctl/watchdog", "svcctl/agent", false},
		{"svcctl/config", "svcctl/state", false},
		{"svcctl/probe", "svcctl/proc", false},
		{"svcctl/runtrace", "svcctl/state", false},
		{"svcctl/state", "svcctl/runtrace", true},
		{"svcctl/agent", "svcctl/report", false},
		{"svcctl/cmd/svc-ctl", "svcctl/internal/testsvc", false},
		{"svcctl/runtrace", "github.com/spf13/cobra", false},
		{"svcctl/agent", "svcctl/watchdog", true},
		{"svcctl/config", "svcctl/schedule", true},
		{"svcctl/runtrace/internal/rtload", "svcctl/runtrace", true},
		{"svcctl/runtrace", "modernc.org/sqlite/lib", true},
		{"svcctl/proc", "svcctl/internal/svcenv", true},
		{"svcctl/internal/redact", "svcctl/config", false},
	} {
		if got := forbidden(c.pkg, c.imp) == ""; got != c.ok {
			t.Errorf("%s -> %s allowed = %v, want %v", c.pkg, c.imp, got, c.ok)
		}
	}
}

// TestBrowserDriverNotShipped: chromedp drives Chromium in e2e/browser only;
// the shipped binary links none of it, on any OS.
func TestBrowserDriverNotShipped(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "./cmd/svc-ctl")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/chromedp/") {
				t.Errorf("GOOS=%s: svc-ctl links %s: the browser driver is for e2e/browser's test only", goos, dep)
			}
		}
	}
}
