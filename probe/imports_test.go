package probe

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsPointDown enforces DESIGN.md's arrows for this package: probe
// imports config, internal/redact (the one secret rule set), the standard
// library, httpproxy, x/sys (an exec check owns its process tree) and
// internal/winjob, and nothing else of svcctl (no agent, proc, runtrace...).
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{"svcctl/config": true, "svcctl/internal/redact": true,
		"svcctl/internal/runas": true, "svcctl/internal/svcenv": true, "golang.org/x/net/http/httpproxy": true,
		"golang.org/x/sys/unix": true, "golang.org/x/sys/windows": true, "svcctl/internal/winjob": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			std := !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") && !strings.HasPrefix(path, "svcctl/")
			if !std && !allowed[path] {
				t.Errorf("%s imports %s: probe may import only config, internal/redact, the standard library, httpproxy, x/sys and internal/winjob", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
