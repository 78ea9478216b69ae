package schedule

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Arrows point down (DESIGN.md): schedule imports only the standard library
// and robfig/cron.
func TestImportsOnlyStdlibAndCron(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first := strings.Split(path, "/")[0]
			if path != "github.com/robfig/cron/v3" && strings.Contains(first, ".") {
				t.Errorf("%s imports %s: schedule may import only the standard library and robfig/cron", name, path)
			}
			if strings.HasPrefix(path, "svcctl/") {
				t.Errorf("%s imports %s: schedule must not import other svc-ctl packages", name, path)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
