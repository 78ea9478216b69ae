package svcctl_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxLines is the most lines a production file may have: past it a file
// holds more than one idea, or one idea that wants splitting, and a reader
// needs a scroll bar to find its parts (docs/architecture.md, "Packages").
const maxLines = 400

// oversized are the production files that were already over maxLines when
// the limit came, with their size then (or, for work that was under way on
// other branches then, when it was merged). The list only shrinks: a file on it
// may not grow, a file under the limit must leave it, and no file may join
// it. Split one (a package of its own, a file per idea), then lower or
// remove its line here.
var oversized = map[string]int{}

// TestNoFileOverMaxLines holds every production file to maxLines: the Go
// files of every package the svc-ctl binary links (on Linux, macOS and
// Windows, each OS's files included), tests excepted, and the status page's
// embedded assets.
func TestNoFileOverMaxLines(t *testing.T) {
	root, _ := os.Getwd()
	var files []string
	for dir := range linkedDirs(t) {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, m := range matches {
			if !strings.HasSuffix(m, "_test.go") {
				files = append(files, m)
			}
		}
	}
	filepath.WalkDir(filepath.Join(root, "ui", "assets"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	seen := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		allowed, listed := oversized[rel]
		seen[rel] = listed
		switch {
		case listed && n <= maxLines:
			t.Errorf("%s: %d lines, within %d now: remove its line from oversized (size_test.go)", rel, n, maxLines)
		case listed && n > allowed:
			t.Errorf("%s: %d lines, grown past the %d it had when the limit came: split it, it may not grow", rel, n, allowed)
		case !listed && n > maxLines:
			t.Errorf("%s: %d lines, over %d: split it by idea (a file per kind, per verb, per step)", rel, n, maxLines)
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d production files found: is the listing wrong?", len(files))
	}
	for rel := range oversized {
		if !seen[rel] {
			t.Errorf("oversized lists %s, which is no production file now: remove its line", rel)
		}
	}
}

// agentMaxLines is the most lines the production files of agent/ itself
// (not its parts in agent/*/) may have together: the agent's lifecycle only
// (docs/architecture.md, "Packages: one room per idea"). An idea with a
// narrow interface of its own goes to a package under agent/. The figure is
// what the lifecycle holds today (the aim was 2,000), and it only comes
// down: lower it when a part leaves.
const agentMaxLines = 1999

// TestAgentHoldsItsLifecycleOnly counts the lines of agent/*.go, tests
// excepted, on every OS (each OS's files included).
func TestAgentHoldsItsLifecycleOnly(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("agent", "*.go"))
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(b, []byte("\n"))
	}
	if total > agentMaxLines {
		t.Errorf("agent/*.go: %d lines, over %d: the agent holds its lifecycle only; move an idea of its own to a package under agent/", total, agentMaxLines)
	}
}
