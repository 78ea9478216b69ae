package runtrace

import (
	"os/exec"
	"strings"
	"testing"

	"svcctl/internal/testutil"
)

// runtrace sits at the bottom of the arrows (DESIGN.md, Packages): the
// standard library and modernc.org/sqlite only (and internal/fsutil, a leaf
// that opens files without following links), never config or agent.
func TestImportsOnlyStdlibAndSQLite(t *testing.T) {
	if !testutil.HaveGoTool() {
		t.Skip("needs the go command to list imports (a test of the source tree: the Linux run has it)")
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(imp, "/")
		if strings.Contains(first, ".") && !strings.HasPrefix(imp, "modernc.org/sqlite") {
			t.Errorf("runtrace imports %s: only the standard library and modernc.org/sqlite are allowed", imp)
		}
		if first == "svcctl" && !strings.HasPrefix(imp, "svcctl/internal/fsutil") {
			t.Errorf("runtrace imports %s: it must not depend on other svc-ctl packages", imp)
		}
	}
}
