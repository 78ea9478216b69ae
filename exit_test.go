package svcctl_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyMainExits: in the packages linked into svc-ctl, os.Exit is called
// from func main and nowhere else, so every other function returns its error
// to the one place that maps it to an exit code, and deferred work runs.
// (Harnesses and generators, which svc-ctl does not link, are not checked.)
func TestOnlyMainExits(t *testing.T) {
	dirs := linkedDirs(t)
	fset := token.NewFileSet()
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
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil || (f.Name.Name == "main" && fn.Recv == nil && fn.Name.Name == "main") {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok && isOSExit(call) {
						t.Errorf("%s: %s calls os.Exit: return an error (or an exit status) to main instead", fset.Position(call.Pos()), fn.Name.Name)
					}
					return true
				})
			}
		}
	}
}

func isOSExit(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Exit" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "os"
}

// linkedDirs are the directories of svc-ctl's own packages that the svc-ctl
// binary links on Linux, macOS or Windows: the shipped code (harnesses,
// benchmarks, developer tools and test helpers are not in it).
func linkedDirs(t *testing.T) map[string]bool {
	t.Helper()
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
			if pkg, dir, ok := strings.Cut(line, " "); ok && strings.HasPrefix(pkg, "svcctl/") {
				dirs[dir] = true
			}
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("svc-ctl links only %d of its own packages: is the listing wrong?", len(dirs))
	}
	return dirs
}
