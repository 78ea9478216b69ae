// Command mutants is `make mutants`: it applies each mutation of its table
// (mutations.go) alone, runs the tests that must notice it, and fails if any
// mutation survives, no longer applies, or does not compile.
//
// A mutation is never written into the tree: the mutated file goes to a
// temporary directory and reaches the compiler through `go test -overlay`
// (passed as GOFLAGS, so a `go build` a test runs sees it too). An
// interrupted run (Ctrl-C, a crash, a kill) leaves the working tree as it
// was; there is nothing to restore. Tests run without -race and with
// -count=1: the question is only whether they fail.
//
// Usage, from the module root:
//
//	go run ./internal/tools/mutants [-only REGEXP] [-v]
//
// Nothing of svc-ctl imports this package (layering_test.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// mutation is one row of the table.
type mutation struct {
	name  string // the behaviour it breaks, for people
	pkg   string // the package directory, "./watchdog"
	decl  string // "func", "(*T).method", "(T).method" or "var name"
	edits []edit // each pattern occurs exactly once in decl's source
	run   string // -run regexp of the tests that must fail
}

type edit struct{ pattern, replacement string }

// outcome is what became of one mutation.
type outcome struct {
	m       *mutation
	verdict string // killed | SURVIVED | NOT APPLIED | DOES NOT COMPILE | ERROR
	note    string
	output  string
	took    time.Duration
}

func (o outcome) ok() bool { return o.verdict == "killed" }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("only", "", "run only the mutations whose name matches this regexp")
	verbose := fs.Bool("v", false, "print the test output of every mutation, not only of those that failed the target")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(stderr, "mutants: run it from the module root (where go.mod is): go run ./internal/tools/mutants")
		return 2
	}
	picked, err := pick(mutations, *only)
	if err != nil {
		fmt.Fprintf(stderr, "mutants: -only: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp, err := os.MkdirTemp("", "svcctl-mutants-")
	if err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	start := time.Now()
	fmt.Fprintf(stdout, "mutants: %d mutations, each alone, through go test -overlay (the tree is never written)\n", len(picked))
	if err := baseline(ctx, picked, stdout); err != nil {
		fmt.Fprintf(stderr, "mutants: %v\n", err)
		return 1
	}
	var results []outcome
	for i, m := range picked {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "mutants: interrupted; the working tree was never changed")
			return 130
		}
		o := try(ctx, m, filepath.Join(tmp, fmt.Sprint(i)))
		results = append(results, o)
		fmt.Fprintf(stdout, "  %-16s %6s  %s  [%s %s]%s\n", o.verdict, o.took.Round(100*time.Millisecond), m.name, m.pkg, m.decl, note(o.note))
		if (!o.ok() || *verbose) && o.output != "" {
			fmt.Fprintln(stdout, indent(tail(o.output, 40)))
		}
	}
	failed := 0
	for _, o := range results {
		if !o.ok() {
			failed++
		}
	}
	fmt.Fprintf(stdout, "mutants: %d of %d killed in %s\n", len(results)-failed, len(results), time.Since(start).Round(time.Second))
	if failed > 0 {
		fmt.Fprintf(stdout, "mutants: FAIL: %d mutation(s) not killed: a survivor needs a test that fails on it; "+
			"one not applied needs its row re-keyed to where the code now is (internal/tools/mutants/mutations.go)\n", failed)
		return 1
	}
	return 0
}

func pick(all []mutation, only string) ([]*mutation, error) {
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, err
	}
	var out []*mutation
	for i := range all {
		if re.MatchString(all[i].name) {
			out = append(out, &all[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q matches no mutation", only)
	}
	return out, nil
}

// baseline runs, per package, every test the mutations name, unmutated:
// they must pass (a test failing already would count every mutation
// killed), and each mutation's -run must name at least one test.
func baseline(ctx context.Context, ms []*mutation, stdout io.Writer) error {
	byPkg := map[string][]string{}
	for _, m := range ms {
		byPkg[m.pkg] = append(byPkg[m.pkg], "("+m.run+")")
		out, err := goTest(ctx, "", "-list", m.run, m.pkg)
		if err != nil {
			return fmt.Errorf("list the tests of %q (%s -run %s): %w\n%s", m.name, m.pkg, m.run, err, out)
		}
		if !listsATest(out) {
			return fmt.Errorf("%q: -run %s names no test in %s: fix the row (internal/tools/mutants/mutations.go)", m.name, m.run, m.pkg)
		}
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		t0 := time.Now()
		out, err := goTest(ctx, "", "-run", strings.Join(byPkg[p], "|"), p)
		if err != nil {
			return fmt.Errorf("baseline: the tests the mutations of %s name fail without any mutation:\n%s", p, tail(out, 40))
		}
		fmt.Fprintf(stdout, "  %-16s %6s  %s, unmutated\n", "baseline ok", time.Since(t0).Round(100*time.Millisecond), p)
	}
	return nil
}

func listsATest(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Test") {
			return true
		}
	}
	return false
}

// try applies m in an overlay under dir and runs its tests.
func try(ctx context.Context, m *mutation, dir string) outcome {
	t0 := time.Now()
	o := outcome{m: m}
	file, mutated, err := apply(m)
	if err != nil {
		o.verdict, o.note = "NOT APPLIED", err.Error()
		o.took = time.Since(t0)
		return o
	}
	overlay, err := writeOverlay(dir, file, mutated)
	if err != nil {
		o.verdict, o.note = "ERROR", err.Error()
		o.took = time.Since(t0)
		return o
	}
	out, err := goTest(ctx, overlay, "-run", m.run, m.pkg)
	o.output = out
	var ee *exec.ExitError
	switch {
	case err == nil:
		o.verdict, o.note = "SURVIVED", "its tests passed with it applied"
	case ctx.Err() != nil:
		o.verdict, o.note = "ERROR", "interrupted"
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		o.verdict, o.note = "DOES NOT COMPILE", "fix the replacement"
	case errors.As(err, &ee):
		o.verdict, o.note, o.output = "killed", failedTests(out), ""
	default:
		o.verdict, o.note = "ERROR", err.Error()
	}
	o.took = time.Since(t0)
	return o
}

// goTest runs go test -count=1 with args, through overlay when set.
func goTest(ctx context.Context, overlay string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1", "-timeout", "5m"}, args...)...)
	cmd.Env = os.Environ()
	if overlay != "" {
		cmd.Env = append(cmd.Env, "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -overlay="+overlay))
	}
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// apply finds m's declaration in its package's non-test files and returns
// the file and its content with every edit made.
func apply(m *mutation) (file string, mutated []byte, err error) {
	file, src, lo, hi, err := locate(m.pkg, m.decl)
	if err != nil {
		return "", nil, err
	}
	body := string(src[lo:hi])
	for _, e := range m.edits {
		switch n := strings.Count(body, e.pattern); n {
		case 1:
			body = strings.Replace(body, e.pattern, e.replacement, 1)
		default:
			return "", nil, fmt.Errorf("%q occurs %d times in %s (%s), want exactly once", e.pattern, n, m.decl, filepath.Base(file))
		}
	}
	out := append(append(append([]byte(nil), src[:lo]...), body...), src[hi:]...)
	return file, out, nil
}

// locate returns the file declaring decl in pkg and the declaration's byte
// range in it. Build constraints are ignored: a declaration found in two
// files (per-OS variants) is ambiguous.
func locate(pkg, decl string) (file string, src []byte, lo, hi int, err error) {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return "", nil, 0, 0, err
	}
	names, err := filepath.Glob(filepath.Join(abs, "*.go"))
	if err != nil {
		return "", nil, 0, 0, err
	}
	var found []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return "", nil, 0, 0, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, b, parser.SkipObjectResolution)
		if err != nil {
			return "", nil, 0, 0, fmt.Errorf("parse %s: %w", name, err)
		}
		if p, e, ok := find(f, decl); ok {
			file, src = name, b
			lo, hi = fset.Position(p).Offset, fset.Position(e).Offset
			found = append(found, filepath.Base(name))
		}
	}
	switch len(found) {
	case 0:
		return "", nil, 0, 0, fmt.Errorf("no declaration %s in %s", decl, pkg)
	case 1:
		return file, src, lo, hi, nil
	}
	return "", nil, 0, 0, fmt.Errorf("%s is declared in %d files of %s (%s): ambiguous", decl, len(found), pkg, strings.Join(found, ", "))
}

// find looks for decl in f: a function, a method "(*T).m" / "(T).m", or
// "var name".
func find(f *ast.File, decl string) (token.Pos, token.Pos, bool) {
	if name, ok := strings.CutPrefix(decl, "var "); ok {
		for _, d := range f.Decls {
			g, isGen := d.(*ast.GenDecl)
			if !isGen || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, id := range s.(*ast.ValueSpec).Names {
					if id.Name == name {
						return s.Pos(), s.End(), true
					}
				}
			}
		}
		return 0, 0, false
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if ok && funcKey(fd) == decl {
			return fd.Pos(), fd.End(), true
		}
	}
	return 0, 0, false
}

// funcKey names a function as the table does: "name", "(*T).name", "(T).name".
func funcKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok { // a generic receiver T[P]
		t = g.X
	}
	id, _ := t.(*ast.Ident)
	if id == nil {
		return ""
	}
	return "(" + star + id.Name + ")." + fd.Name.Name
}

// writeOverlay puts mutated under dir and returns an overlay file that
// replaces file with it.
func writeOverlay(dir, file string, mutated []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	repl := filepath.Join(dir, filepath.Base(file))
	if err := os.WriteFile(repl, mutated, 0o600); err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]map[string]string{"Replace": {file: repl}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, b, 0o600)
}

// failedTests names the tests that failed, from go test's output.
func failedTests(out string) string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "--- FAIL: "); ok {
			n, _, _ = strings.Cut(n, " ")
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "its tests failed"
	}
	return "failed: " + strings.Join(names, ", ")
}

func note(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string { return "      | " + strings.ReplaceAll(s, "\n", "\n      | ") }
