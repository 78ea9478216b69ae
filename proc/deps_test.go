package proc

import (
	"os/exec"
	"strings"
	"testing"
)

// proc sits below the agent: it may import only the standard library,
// golang.org/x/sys and gopsutil, on every OS it builds for, and the
// internal leaves that start a process the way issue 11 wants (fsutil: no
// links; runas: the identity; svcenv: the base environment).
func TestImportsStayLow(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	allowed := []string{"svcctl/proc", "svcctl/internal/winjob", "svcctl/internal/fsutil", "svcctl/internal/runas", "svcctl/internal/svcenv", "golang.org/x/sys/", "github.com/shirou/gopsutil/v4/",
		// gopsutil's own dependencies
		"github.com/tklauser/", "github.com/ebitengine/purego", "github.com/yusufpapurcu/wmi",
		"github.com/go-ole/go-ole", "github.com/lufia/plan9stats", "github.com/power-devops/perfstat"}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (%s): %v", goos, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if !hasAnyPrefix(dep, allowed) {
				t.Errorf("GOOS=%s: proc depends on %s; it may import only the standard library, x/sys, gopsutil and internal/{winjob,fsutil,runas,svcenv}", goos, dep)
			}
		}
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
