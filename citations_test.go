package svcctl_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citation matches what a reader of the repository cannot open: the
// founding design document kept outside it, and the labels of reviews,
// findings, issues, seeds and waves that name a discussion held elsewhere.
// A comment, test message or doc says the reason itself, or links a doc in
// the repository (docs/architecture.md, docs/design/).
var citation = regexp.MustCompile(`(?i)\bdesign\.md\b|\breview ?\d|\bissues? #?\d+|\bfinding \d+|\bwave[- ]?\d|\bseed \d{3}`)

// TestNoCitationsOfWhatIsNotHere fails on a file of the repository (code,
// tests, docs, scripts, CI, test data) that cites the design document kept
// outside it or a label of a review or an issue.
func TestNoCitationsOfWhatIsNotHere(t *testing.T) {
	self := "citations_test.go"
	n := 0
	filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" {
				return filepath.SkipDir
			}
			return nil
		}
		if path == self || !cited(path) {
			return nil
		}
		n++
		f, err := os.Open(path)
		if err != nil {
			t.Error(err)
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for line := 1; sc.Scan(); line++ {
			if m := citation.FindString(sc.Text()); m != "" {
				t.Errorf("%s:%d cites %q, which a reader of the repository cannot open: say the reason itself, or link the doc in docs/ that holds it", path, line, m)
			}
		}
		return nil
	})
	if n < 100 {
		t.Fatalf("only %d files read: run from the module root", n)
	}
}

// cited reports whether path is a file this test reads: what people read
// for reasons (code, docs, scripts, CI, config and test data).
func cited(path string) bool {
	switch filepath.Ext(path) {
	case ".go", ".md", ".js", ".css", ".html", ".sh", ".toml", ".yml", ".yaml", ".txt":
		return true
	}
	base := filepath.Base(path)
	return base == "Makefile" || filepath.Dir(path) == ".ci"
}
