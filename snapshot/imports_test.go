package snapshot

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImportsOnlyStdlibAndFsutil keeps the arrows pointing down: probe results
// and process facts come in as values, never through an import.
func TestImportsOnlyStdlibAndFsutil(t *testing.T) {
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !allowedImport(p) {
				t.Errorf("%s imports %s: snapshot may import only the standard library and internal/fsutil", name, p)
			}
		}
	}
}

func allowedImport(path string) bool {
	if path == "svcctl/internal/fsutil" {
		return true
	}
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && first != "svcctl" // the standard library
}
