package svcctl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOneSpawnDoor: in the packages linked into svc-ctl, every process is
// started through internal/child, which registers it for the reaper: a
// process started any other way can have its exit status reaped by the
// agent's orphan reaper, and then os/exec's Wait fails with ECHILD
// (internal/child's package comment says why). Nothing outside that package
// may build an exec.Cmd, start one through the embedded exec.Cmd, or start a
// process with os.StartProcess, syscall.ForkExec or CreateProcess.
func TestOneSpawnDoor(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command to list svc-ctl's packages: %v", err)
	}
	dirs := map[string]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}} {{.Dir}}{{end}}`, "./cmd/svc-ctl")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if pkg, dir, ok := strings.Cut(line, " "); ok && strings.HasPrefix(pkg, "svcctl/") && pkg != "svcctl/internal/child" {
				dirs[dir] = true
			}
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("svc-ctl links only %d of its own packages: is the listing wrong?", len(dirs))
	}
	fset := token.NewFileSet()
	checked := 0
	for dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, v := range spawnViolations(fset, f) {
				t.Error(v)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files", checked)
	}
}

// The checker finds each way around the door (a test of the test).
func TestSpawnViolationsFound(t *testing.T) {
	src := `package p

import (
	goexec "os/exec"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
	"svcctl/internal/child"
)

type runner struct{ cmd *goexec.Cmd }

func a() { goexec.Command("x").Run() }
func b() { _ = goexec.CommandContext(nil, "x") }
func c() { _ = &goexec.Cmd{Path: "x"} }
func d() { _ = new(goexec.Cmd) }
func e() { os.StartProcess("x", nil, nil) }
func f() { syscall.ForkExec("x", nil, nil) }
func g() { windows.CreateProcess(nil, nil, nil, nil, false, 0, nil, nil, nil, nil) }
func h() { c := child.Command("x"); c.Cmd.Start() }
func i(cmd *goexec.Cmd) { cmd.Run() }
func (r *runner) j() { r.cmd.Output() }
func k() { var x *goexec.Cmd; x.CombinedOutput() }
func fine() { c := child.Command("x"); c.Start(); c.Wait(); _, _ = goexec.LookPath("x") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, v := range spawnViolations(fset, f) {
		pos := strings.Split(v[strings.Index(v, "p.go:"):], ":") // p.go, line, column, ...
		got["p.go:"+pos[1]] = true
	}
	for line := 14; line <= 24; line++ {
		if !got["p.go:"+strconv.Itoa(line)] {
			t.Errorf("line %d of the fixture not flagged (flagged: %v)", line, got)
		}
	}
	if got["p.go:25"] {
		t.Errorf("the door itself (line 25) was flagged")
	}
}

// spawnViolations lists every place in f that starts a process other than
// through internal/child.
func spawnViolations(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	is := func(e ast.Expr, pkg, sel string) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := s.X.(*ast.Ident)
		return ok && names[id.Name] == pkg && s.Sel.Name == sel
	}
	isCmdType := func(e ast.Expr) bool {
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		return is(e, "os/exec", "Cmd")
	}
	starts := map[string]bool{"Start": true, "Run": true, "Output": true, "CombinedOutput": true}
	// Names declared as an *exec.Cmd anywhere in the file: variables,
	// parameters and struct fields.
	cmdNames := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if isCmdType(n.Type) {
				for _, id := range n.Names {
					cmdNames[id.Name] = true
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && isCmdType(n.Type) {
				for _, id := range n.Names {
					cmdNames[id.Name] = true
				}
			}
		}
		return true
	})
	var out []string
	flag := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what+": start processes through svcctl/internal/child (it registers them for the reaper)")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if isCmdType(n.Type) {
				flag(n, "an exec.Cmd literal")
			}
		case *ast.CallExpr:
			switch {
			case is(n.Fun, "os/exec", "Command"), is(n.Fun, "os/exec", "CommandContext"):
				flag(n, "exec.Command")
			case is(n.Fun, "os", "StartProcess"), is(n.Fun, "syscall", "StartProcess"), is(n.Fun, "syscall", "ForkExec"),
				is(n.Fun, "golang.org/x/sys/unix", "ForkExec"), is(n.Fun, "golang.org/x/sys/windows", "CreateProcess"),
				is(n.Fun, "golang.org/x/sys/windows", "CreateProcessAsUser"):
				flag(n, "a raw process start")
			}
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 && isCmdType(n.Args[0]) {
				flag(n, "new(exec.Cmd)")
			}
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || !starts[sel.Sel.Name] {
				break
			}
			switch x := sel.X.(type) {
			case *ast.SelectorExpr: // r.cmd.Start(), c.Cmd.Start()
				if x.Sel.Name == "Cmd" || cmdNames[x.Sel.Name] {
					flag(n, "a start through the embedded exec.Cmd")
				}
			case *ast.Ident: // cmd.Run() on an *exec.Cmd
				if cmdNames[x.Name] {
					flag(n, "a start of an exec.Cmd")
				}
			}
		}
		return true
	})
	return out
}
