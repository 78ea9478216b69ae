package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every row of the table applies to the tree as it is: its declaration is
// found in one file and each pattern occurs there exactly once. A refactor
// that moves the code fails here, in the ordinary suite, naming the row to
// re-key; `make mutants` then says whether the tests still kill it.
func TestEveryMutationApplies(t *testing.T) {
	root := moduleRoot(t)
	t.Chdir(root)
	for i := range mutations {
		m := &mutations[i]
		if _, _, err := apply(m); err != nil {
			t.Errorf("%q: %v", m.name, err)
		}
		if m.run == "" || m.pkg == "" || len(m.edits) == 0 {
			t.Errorf("%q: a row needs a package, edits and the tests that must kill it", m.name)
		}
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

// A mutation applies only where its key says, exactly once; anything else
// is "not applied", never a mutation of something else.
func TestApply(t *testing.T) {
	const pkg = "./testdata/sample"
	for _, c := range []struct {
		decl    string
		edits   []edit
		want    string // a line of the mutated file
		wantErr string
	}{
		{decl: "double", edits: []edit{{"n * 2", "n * 3"}}, want: "func double(n int) int { return n * 3 }"},
		{decl: "(*box).grow", edits: []edit{{"b.n * 2", "b.n"}}, want: "func (b *box) grow() { b.n = b.n }"},
		{decl: "(box).twice", edits: []edit{{"* 2 * 1", "* 1"}}, want: "func (b box) twice() int { return b.n * 1 }"},
		{decl: "var limits", edits: []edit{{`"b": 2`, `"b": 3`}}, want: `var limits = map[string]int{"a": 1, "b": 3}`},
		{decl: "double", edits: []edit{{"n * 2", "n"}, {"return n", "return -n"}}, want: "func double(n int) int { return -n }"},
		// the pattern is in the file, but not in this declaration
		{decl: "double", edits: []edit{{"b.n * 2", "b.n"}}, wantErr: `"b.n * 2" occurs 0 times in double`},
		{decl: "(box).twice", edits: []edit{{"*", "/"}}, wantErr: `"*" occurs 2 times in (box).twice`},
		{decl: "(*box).grow", edits: []edit{{"b.n", "x"}}, wantErr: `"b.n" occurs 2 times in (*box).grow (sample.go), want exactly once`},
		{decl: "(box).grow", edits: []edit{{"b.n * 2", "b.n"}}, wantErr: "no declaration (box).grow in ./testdata/sample"},
		{decl: "triple", edits: []edit{{"x", "y"}}, wantErr: "no declaration triple"},
		{decl: "var missing", edits: []edit{{"x", "y"}}, wantErr: "no declaration var missing"},
		{decl: "perOS", edits: []edit{{"1", "3"}}, wantErr: "perOS is declared in 2 files of ./testdata/sample (other_linux.go, other_windows.go): ambiguous"},
	} {
		m := &mutation{name: c.decl, pkg: pkg, decl: c.decl, edits: c.edits}
		_, got, err := apply(m)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s %v: err %v, want %q", c.decl, c.edits, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s %v: %v", c.decl, c.edits, err)
		case !strings.Contains(string(got), "\n"+c.want+"\n"):
			t.Errorf("%s %v: mutated file lacks %q:\n%s", c.decl, c.edits, c.want, got)
		}
	}
	if b, _ := os.ReadFile("testdata/sample/sample.go"); !strings.Contains(string(b), "return n * 2 }") {
		t.Fatal("apply wrote into the tree")
	}
}
