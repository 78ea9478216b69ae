package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// TestDemoPrintsNotifications: `svc-ctl demo --quiet` (no story: the
// passive demo) has a channel that prints the events it would send;
// crashing the demo service shows service.down.
func TestDemoPrintsNotifications(t *testing.T) {
	cmd := exec.Command(svcctlBin, "demo", "--quiet")
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
	seen := func(re *regexp.Regexp) []string {
		mu.Lock()
		defer mu.Unlock()
		return re.FindStringSubmatch(text.String())
	}
	var addr string
	health := regexp.MustCompile(`supervises "demo" \(http://([0-9.:]+)/health\)`)
	testutil.WaitFor(t, 10*time.Second, "the demo's intro", func() bool {
		if m := seen(health); m != nil {
			addr = m[1]
			return true
		}
		return false
	})
	// Up means its first cycle finished: a crash while that cycle still
	// waits for health is a failed start, another story.
	started := regexp.MustCompile(`cycle.finished .*reason=started`)
	testutil.WaitFor(t, 20*time.Second, "the demo service started", func() bool { return seen(started) != nil && testutil.Healthy(addr) })
	if resp, err := http.Get("http://" + addr + "/control/crash"); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	notified := regexp.MustCompile(`NOTIFY service\.down: demo on \S+ was down .* and was restarted`)
	testutil.WaitFor(t, 20*time.Second, "a NOTIFY line for the crash", func() bool { return seen(notified) != nil })
	// The line says why it was down as the row's cause does: it exited
	// (the crash), not the probe's "connection refused".
	if line := seen(notified)[0]; !strings.Contains(line, "was down (exited") {
		t.Fatalf("the NOTIFY line does not give the exit as the cause: %s", line)
	}
}
