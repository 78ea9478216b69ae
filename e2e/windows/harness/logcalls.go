package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
)

// A test's output does not say whether a line came from t.Log or t.Error:
// both print "file_test.go:LINE: text". The package's test source does. So a
// failed test whose only failure is a gap can still have logged on the way
// (a timing figure, a helper's transcript) and be tolerated, while a line
// from t.Error, t.Fatal or anything this file cannot prove is a log keeps it
// a FAIL.

// siteRE matches the call site testing puts before a logged line.
var siteRE = regexp.MustCompile(`^\s*([A-Za-z0-9_.\-]+\.go):(\d+): `)

var (
	// A skip's reason is not a failure either: a test that skipped and then
	// failed only in its TempDir cleanup (the gap) is tolerated.
	logCalls  = map[string]bool{"Log": true, "Logf": true, "Skip": true, "Skipf": true}
	failCalls = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true}
)

// sources is the parsed _test.go files of one package directory.
type sources struct {
	fset  *token.FileSet
	files map[string]*ast.File       // base name -> file
	funcs map[string][]*ast.FuncDecl // name (functions and methods) -> declarations
}

func parseSources(dir string) *sources {
	s := &sources{fset: token.NewFileSet(), files: map[string]*ast.File{}, funcs: map[string][]*ast.FuncDecl{}}
	names, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, n := range names {
		f, err := parser.ParseFile(s.fset, n, nil, 0)
		if err != nil {
			continue
		}
		s.files[filepath.Base(n)] = f
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				s.funcs[fd.Name.Name] = append(s.funcs[fd.Name.Name], fd)
			}
		}
	}
	return s
}

// isLogSite reports whether the call at file:line only logs: a t.Log(f)
// call, or a call of a helper of this package that logs and never fails.
func (s *sources) isLogSite(file string, line int) bool {
	f := s.files[file]
	if f == nil {
		return false
	}
	verdict := unknown
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if s.fset.Position(call.Pos()).Line > line || s.fset.Position(call.End()).Line < line {
			return true
		}
		verdict = combine(verdict, s.callVerdict(call, 0))
		return true
	})
	return verdict == logs
}

type callKind int

const (
	unknown callKind = iota
	logs
	fails
)

// combine: any failure wins; a log beats unknown.
func combine(a, b callKind) callKind {
	if a == fails || b == fails {
		return fails
	}
	if a == logs || b == logs {
		return logs
	}
	return unknown
}

func (s *sources) callVerdict(call *ast.CallExpr, depth int) callKind {
	name := ""
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		name = fn.Sel.Name
		if failCalls[name] {
			return fails
		}
		if logCalls[name] {
			return logs
		}
	case *ast.Ident:
		name = fn.Name
	default:
		return unknown
	}
	decls := s.funcs[name]
	if len(decls) == 0 || depth >= 3 {
		return passesTest(call)
	}
	v := unknown
	for _, d := range decls {
		if d.Body == nil {
			continue
		}
		ast.Inspect(d.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				v = combine(v, s.callVerdict(c, depth+1))
			}
			return true
		})
	}
	return v
}

// passesTest: a call this file cannot look into fails the test as far as
// the harness knows when it is handed the test (t, tb, b, f): a helper of
// another package (internal/testutil) may call t.Fatal through it.
func passesTest(call *ast.CallExpr) callKind {
	for _, a := range call.Args {
		if id, ok := a.(*ast.Ident); ok && (id.Name == "t" || id.Name == "tb" || id.Name == "b" || id.Name == "f") {
			return fails
		}
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "t" || id.Name == "tb" || id.Name == "b" || id.Name == "f") {
			return unknown // a method of the test itself (Helper, Cleanup, Run, TempDir): not a failure
		}
	}
	return unknown
}

// site splits a logged line into its file and line, if it has a call site.
func site(l string) (file string, line int, ok bool) {
	m := siteRE.FindStringSubmatch(l)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	return m[1], n, err == nil
}
