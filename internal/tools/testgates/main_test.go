package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// browserVerdict: the browser tests drive Linux Chromium only.
var browserVerdict = map[bool]string{true: "RUN", false: "SKIP"}[runtime.GOOS == "linux"]

func TestJudge(t *testing.T) {
	byName := map[string]gate{}
	for _, g := range gates {
		byName[g.name] = g
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	has := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			if slices.Contains(names, n) {
				return "/usr/bin/" + n, nil
			}
			return "", errors.New("not found")
		}
	}
	for _, c := range []struct {
		gate    string
		env     func(string) string
		root    bool
		path    func(string) (string, error)
		verdict string
		why     string
	}{
		{"install", env(), true, has(), "SKIP", "SVCCTL_E2E_INSTALL is not set"},
		{"install", env("SVCCTL_E2E_INSTALL", "1"), true, has(), "RUN", "installs svc-ctl"},
		{"install", env("SVCCTL_E2E_INSTALL", "1"), false, has(), "FAIL", "not root: its tests fail"},
		{"install", env("SVCCTL_E2E_INSTALL", "yes"), true, has(), "SKIP", "is not set"}, // the tests want exactly 1
		{"privileged end-to-end", env("SVCCTL_E2E_PRIVILEGED", "1"), false, has(), "SKIP", "not root"},
		{"privileged end-to-end", env("SVCCTL_E2E_PRIVILEGED", "1"), true, has(), "RUN", "e2e/privileged"},
		{"browser", env("SVCCTL_E2E_BROWSER", "1"), false, has(), "FAIL", "chromium or chromium-browser"},
		{"browser", env("SVCCTL_E2E_BROWSER", "1"), false, has("google-chrome"), browserVerdict, "headless Chromium"},
		{"desktop notifications", env(), false, has(), "SKIP", "dbus-daemon is not installed"},
		{"desktop notifications", env(), false, has("dbus-daemon"), "RUN", "session bus"},
		{"root-only tests", env(), false, has(), "SKIP", "not root"},
		{"root-only tests", env(), true, has(), "RUN", "as root, the tests that need an unprivileged user run as nobody"},
		{"reboot drill", env(), true, has(), "SKIP", "run it alone, make reboot-drill"},
		{"reboot drill", env("SVCCTL_REBOOT_DRILL", "1"), true, has(), "RUN", "alone is better"},
		{"Windows under Wine", env(), true, has(), "SKIP", "not part of go test ./...: e2e/windows/run.sh"},
		{"mutants", env(), true, has(), "SKIP", "make mutants"},
		{"OpenTelemetry Collector end to end", env(), false, has(), "SKIP", "SVCCTL_E2E_OTLP is not set"},
		{"OpenTelemetry Collector end to end", env("SVCCTL_E2E_OTLP", "1"), false, has(), "RUN", "after the suite, in its own module (e2e/otlp)"},
	} {
		g, ok := byName[c.gate]
		if !ok {
			t.Fatalf("no gate %q", c.gate)
		}
		verdict, why := judge(g, c.env, c.root, c.path)
		if verdict != c.verdict || !strings.Contains(why, c.why) {
			t.Errorf("%s (root %v): %s %q; want %s with %q", c.gate, c.root, verdict, why, c.verdict, c.why)
		}
	}
}

// Every variable a test reads to switch itself on is a gate here, and the
// README names every gate's variable; CI runs the README's test command.
func TestEveryGateIsListed(t *testing.T) {
	root := moduleRoot(t)
	known := map[string]bool{}
	var words strings.Builder
	for _, g := range gates {
		if g.env != "" {
			known[g.env] = true
		}
		words.WriteString(g.how + " ")
	}
	gateVar := regexp.MustCompile(`SVCCTL_(E2E_[A-Z_]+|REBOOT_DRILL)\b`)
	found := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".sh")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range gateVar.FindAllString(string(b), -1) {
			found[v] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for v, path := range found {
		if !known[v] && !strings.Contains(words.String(), v) {
			t.Errorf("%s (read in %s) is no gate of internal/tools/testgates: add it, so make test says whether it runs", v, path)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gates {
		if g.env != "" && !strings.Contains(string(readme), g.env) {
			t.Errorf("README.md does not name the gate %s (%s): list it under Tests", g.env, g.name)
		}
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "make test") || !regexp.MustCompile(`(?m)^\s*make test\b`).Match(ci) {
		t.Errorf("the README's test command is make test, and .ci/run must run it")
	}
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// A gate whose tests are a module of their own names a directory that is
// one: make test runs go test ./... there, and a wrong path would run
// nothing and pass.
func TestModuleGatesAreModules(t *testing.T) {
	root := moduleRoot(t)
	for _, g := range gates {
		if g.module == "" {
			continue
		}
		if g.env == "" {
			t.Errorf("gate %s: a module gate needs its variable", g.name)
		}
		if _, err := os.Stat(filepath.Join(root, g.module, "go.mod")); err != nil {
			t.Errorf("gate %s: module %s: %v", g.name, g.module, err)
		}
	}
}
