//go:build unix

package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A privileged agent takes no request another user could have written (a
// group- or world-writable file), and never follows a link.
func TestTakeRefusesUntrusted(t *testing.T) {
	p := paths(t)
	req, _ := Post(p, KindRun, RunArgs{Job: "x"})
	os.Chmod(filepath.Join(p.Requests(), req.ID+".req"), 0o666)
	reqs, errs := Take(p, time.Now(), true)
	if len(reqs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "refused") {
		t.Fatalf("a world-writable request: %+v %v", reqs, errs)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, []byte(`{"id":"2123456789abcdef","kind":"run"}`), 0o600)
	os.Symlink(target, filepath.Join(p.Requests(), "2123456789abcdef.req"))
	reqs, errs = Take(p, time.Now(), false)
	if len(reqs) != 0 || len(errs) != 1 {
		t.Fatalf("a request that is a link: %+v %v", reqs, errs)
	}
}
