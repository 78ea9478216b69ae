// Command testgates is `make test`: it says which gated tests this run
// includes and which it leaves out, and why, then runs the suite
// (CGO_ENABLED=1 go test -race ./..., with any arguments added), then the
// gated tests that live in a Go module of their own, when asked for.
//
// A gate is a test that runs only when asked (an environment variable: it
// installs a real OS service, creates users, boots a VM) or only where it
// can (root, a tool installed). The table below is the one list; the README
// lists the same gates, and TestEveryGateIsListed holds both to the
// variables the tests read.
//
// Nothing of svc-ctl imports this package (layering_test.go).
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// gate is one thing a run of the suite may include or leave out.
type gate struct {
	name string // what it is, for people
	env  string // the variable that turns it on; "" when none does
	// inSuite: go test ./... runs it when it is on; otherwise it has a
	// command of its own (how).
	inSuite bool
	root    bool // it needs root: without, its tests skip...
	// ...or, asked for by its variable, fail (they refuse to pretend).
	rootOrFail bool
	needs      []string // a program it needs on PATH (any of these)
	// alone: go test ./... runs it once its variable is set, but it takes
	// the machine for minutes: its own command (how) is the better way.
	alone bool
	how   string // how to run it, when not in the suite
	// module: the gate's tests are a Go module of their own (this
	// directory), which ./... does not reach: once its variable is set,
	// make test runs go test ./... there after the suite.
	module string
	what   string
}

var gates = []gate{
	{name: "root-only tests", root: true, inSuite: true,
		what: "permission rules, run-as-user, state dir ownership (as root, the tests that need an unprivileged user run as nobody)"},
	{name: "install", env: "SVCCTL_E2E_INSTALL", root: true, rootOrFail: true, inSuite: true,
		what: "installs svc-ctl as a real OS service with this host's init system, then uninstalls it (refuses a host that has one)"},
	{name: "privileged end-to-end", env: "SVCCTL_E2E_PRIVILEGED", root: true, inSuite: true,
		what: "e2e/privileged (throwaway unprivileged users) and e2e/diskfull (a full tmpfs)"},
	{name: "browser", env: "SVCCTL_E2E_BROWSER", inSuite: true, needs: []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"},
		what: "the status page in headless Chromium (Linux)"},
	{name: "desktop notifications", inSuite: true, needs: []string{"dbus-daemon"},
		what: "notify's desktop channel against a private session bus"},
	{name: "reboot drill", env: "SVCCTL_REBOOT_DRILL", root: true, inSuite: true, alone: true,
		how:  "make reboot-drill, or SVCCTL_REBOOT_DRILL=1 go test -timeout 40m -run RebootDrill ./e2e/rebootdrill/",
		what: "boots a Debian guest under qemu, installs, reboots (both cores for minutes: run it alone)"},
	{name: "Windows under Wine",
		how:  "e2e/windows/run.sh (docs/windows.md; .ci/run runs it unless SVCCTL_E2E_WINDOWS=0)",
		what: "every package's Windows test binary and svc-ctl.exe end to end"},
	{name: "OpenTelemetry Collector end to end", env: "SVCCTL_E2E_OTLP", module: "e2e/otlp",
		how:  "a module of its own, run after the suite: alone, cd e2e/otlp && SVCCTL_E2E_OTLP=1 go test ./...",
		what: "a real agent exports to a Collector built from its own modules, across an outage and a SIGKILL"},
	{name: "mutants",
		how:  "make mutants",
		what: "each mutation of internal/tools/mutants/mutations.go must fail its tests"},
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	report(stdout, os.Getenv, os.Geteuid() == 0, exec.LookPath)
	goArgs := append([]string{"test", "-race", "-timeout", "15m"}, args...)
	if !hasPackage(args) {
		goArgs = append(goArgs, "./...")
	}
	fmt.Fprintf(stdout, "== CGO_ENABLED=1 go %s\n", strings.Join(goArgs, " "))
	code := goTest(".", goArgs, "CGO_ENABLED=1", stdout, stderr) // -race needs cgo
	if hasPackage(args) {
		return code // the packages asked for, nothing else
	}
	// A module of its own, after the suite even when the suite failed:
	// one run says everything that fails.
	for _, g := range gates {
		if g.module == "" || os.Getenv(g.env) != "1" {
			continue
		}
		modArgs := []string{"test", "-count=1", "-timeout", "10m", "./..."}
		fmt.Fprintf(stdout, "== %s: (cd %s && go %s)\n", g.env, g.module, strings.Join(modArgs, " "))
		if c := goTest(g.module, modArgs, "", stdout, stderr); code == 0 {
			code = c
		}
	}
	return code
}

// goTest runs go with args in dir (extra: one more NAME=value for its
// environment, or "") and returns its exit code.
func goTest(dir string, args []string, extra string, stdout, stderr io.Writer) int {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if extra != "" {
		cmd.Env = append(cmd.Env, extra)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "make test: %v\n", err)
		return 1
	}
	return 0
}

// hasPackage: the arguments name packages of their own.
func hasPackage(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "./") || a == "." {
			return true
		}
	}
	return false
}

// report prints one line per gate: RUN, SKIP or FAIL (asked for, but it
// cannot run here: its tests will fail), and why.
func report(w io.Writer, getenv func(string) string, root bool, lookPath func(string) (string, error)) {
	fmt.Fprintln(w, "== gated tests (README, \"Tests\": set the variable to include one)")
	for _, g := range gates {
		verdict, why := judge(g, getenv, root, lookPath)
		label := g.name
		if g.env != "" {
			label += " (" + g.env + "=1)"
		}
		fmt.Fprintf(w, "  %-4s  %-46s %s\n", verdict, label, why)
	}
}

func judge(g gate, getenv func(string) string, root bool, lookPath func(string) (string, error)) (verdict, why string) {
	missing := ""
	if len(g.needs) > 0 {
		missing = strings.Join(g.needs, " or ") + " is not installed"
		for _, n := range g.needs {
			if _, err := lookPath(n); err == nil {
				missing = ""
				break
			}
		}
	}
	switch {
	case g.module != "" && getenv(g.env) == "1":
		return "RUN", "after the suite, in its own module (" + g.module + ") — " + g.what
	case g.module != "":
		return "SKIP", g.env + " is not set: " + g.how + " — " + g.what
	case !g.inSuite:
		return "SKIP", "not part of go test ./...: " + g.how + " — " + g.what
	case g.alone && getenv(g.env) != "1":
		return "SKIP", g.env + " is not set: run it alone, " + g.how + " — " + g.what
	case g.env != "" && getenv(g.env) != "1":
		return "SKIP", g.env + " is not set — " + g.what
	case g.root && !root && g.rootOrFail:
		return "FAIL", g.env + "=1 but not root: its tests fail (they need root) — " + g.what
	case g.root && !root:
		return "SKIP", "not root — " + g.what
	case missing != "" && g.env != "":
		return "FAIL", g.env + "=1 but " + missing + ": its tests fail — " + g.what
	case missing != "":
		return "SKIP", missing + " — " + g.what
	case g.env == "SVCCTL_E2E_BROWSER" && runtime.GOOS != "linux":
		return "SKIP", "Linux only — " + g.what
	}
	if g.alone {
		return "RUN", "inside the suite, beside every other test: alone is better (" + g.how + ") — " + g.what
	}
	return "RUN", g.what
}
