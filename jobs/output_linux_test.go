//go:build linux

package jobs

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"svcctl/internal/redact"
	"svcctl/runtrace"
)

// A job's output is kept within log_max: the first and the last half, with
// a line saying how much was left out, and nothing else on disk.
func TestJobOutputKeepsHeadAndTailWithinLogMax(t *testing.T) {
	e := jobEnv(t, `
[[job]]
name = "chatty"
schedule = "@daily"
timezone = "UTC"
command = ["/usr/bin/seq", "1", "300000"]
log_max = "64KiB"
`)
	res := runJobT(context.Background(), e.paths, e.cfg.Job("chatty"), redact.New())
	if res.Outcome != runtrace.OutcomeOK {
		t.Fatalf("%+v", res)
	}
	b, err := os.ReadFile(e.paths.JobLog("chatty"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 64<<10+200 {
		t.Fatalf("last.log is %d bytes, past log_max 64 KiB", len(b))
	}
	if !bytes.HasPrefix(b, []byte("1\n2\n3\n")) || !bytes.HasSuffix(b, []byte("299999\n300000\n")) || !bytes.Contains(b, []byte("bytes of output left out here")) {
		t.Fatalf("last.log does not keep the head, the tail and the note: %q ... %q", b[:40], b[len(b)-40:])
	}
	if _, err := os.Stat(e.paths.JobLogTail("chatty")); !os.IsNotExist(err) {
		t.Fatalf("last.log.tail left behind: %v", err)
	}
}

// jobOutput in isolation: whatever the write sizes, last.log is exactly the
// first half, the note, and the last half of what was written.
func TestJobOutputHeadAndTailExact(t *testing.T) {
	dir := t.TempDir()
	for _, total := range []int{0, 100, 1000, 1001, 5000, 123457} {
		path := filepath.Join(dir, fmt.Sprint("out", total))
		o, err := openJobOutput(path, path+".tail", 1000)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]byte, total)
		for i := range all {
			all[i] = byte('a' + i%26)
		}
		for p := all; len(p) > 0; {
			k := min(len(p), 1+rand.IntN(700))
			o.Write(p[:k])
			p = p[k:]
		}
		if err := o.Close(); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		want := all
		if total > 1000 {
			note := fmt.Sprintf("\n[svc-ctl: %d bytes of output left out here: log_max keeps the first and the last 500 bytes]\n", total-1000)
			want = append(append(append([]byte{}, all[:500]...), note...), all[total-500:]...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes written: last.log is %d bytes, want %d:\n%q", total, len(got), len(want), got)
		}
	}
}
