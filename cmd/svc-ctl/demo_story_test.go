//go:build linux

package main

import (
	"bufio"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestDemoStory (issue 15, item 7): `svc-ctl demo` plays its story in about
// a minute: each step narrated with the command that shows it, and the
// events a channel would get for each (NOTIFY lines): the crash and the
// hang (service.down), the failed job, the job's own skip, the missing slot;
// the reload at the end leaves the demo service's process alone.
func TestDemoStory(t *testing.T) {
	cmd := exec.Command(svcctlBin, "demo")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	var mu sync.Mutex
	var text strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			text.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	got := func() string {
		mu.Lock()
		defer mu.Unlock()
		return text.String()
	}
	testutil.WaitForSaying(t, 150*time.Second, "the end of the story", func() bool {
		return strings.Contains(got(), "That was the story") || strings.Contains(got(), "The story stops here")
	}, got)
	s := got()
	for _, want := range []string{
		"1/5  A crash, restored by the fast path", "cause: exited: with code 3", "svc-ctl runs --job demo",
		"2/5  A hang, replaced at the next cycle", "cause: unhealthy: http: ", "svc-ctl why demo",
		"3/5  Two jobs", "job:report  failed/exit-nonzero", "job:sync  skipped/job.upstream-down", "svc-ctl why sync",
		"4/5  A slot that never ran", "svc-ctl missing",
		"5/5  A reload", "reloaded: jobs removed: backup, report, sync; 1 unchanged", "the demo service kept its process",
		"NOTIFY job.failed: job report", "NOTIFY job.skipped: job sync", "NOTIFY job.missing: job backup",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the story lacks %q", want)
		}
	}
	if n := strings.Count(s, "NOTIFY service.down: demo"); n != 2 {
		t.Errorf("%d service.down events, want 2 (the crash and the hang)", n)
	}
	if t.Failed() {
		t.Logf("the demo said:\n%s", s)
	}
}
