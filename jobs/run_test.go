package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/redact"
	"svcctl/runtrace"
)

func TestExitNonzeroKeepsOutputTail(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "fails"
schedule = "@daily"
timezone = "Asia/Shanghai"
command = `+jobCommand(7, "", "upstream said 503")+`
`)
	res := runJobT(context.Background(), e.paths, e.cfg.Job("fails"), redact.New(e.cfg.SecretValues()...))
	if res.Reason != runtrace.ReasonExitNonzero || res.Detail["exit_code"] != 7 {
		t.Fatalf("%+v", res)
	}
	if tail := fmt.Sprint(res.Detail["output_tail"]); !strings.Contains(tail, "upstream said 503") {
		t.Fatalf("output tail %q", tail)
	}
	// The previous run's output is kept as last.prev.log.
	runJobT(context.Background(), e.paths, e.cfg.Job("fails"), redact.New(e.cfg.SecretValues()...))
	if _, err := os.Stat(filepath.Join(e.paths.JobDir("fails"), "last.prev.log")); err != nil {
		t.Fatal(err)
	}
}
