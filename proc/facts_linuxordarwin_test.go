//go:build linux || darwin

package proc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// FactsOf on a real HTTP service: the port it listens on, memory, threads.
func TestFactsOfTestsvc(t *testing.T) {
	s := helperSpec(t, "testsvc", "--addr", "127.0.0.1:0")
	c := spawnT(t, s)
	log := waitLog(t, s.LogPath, "listening on")
	m := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no port in log:\n%s", log)
	}
	port, _ := strconv.Atoi(m[1])
	resp, err := http.Get("http://127.0.0.1:" + m[1] + "/health")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/health = %d", resp.StatusCode)
	}

	f, err := FactsOf(c.Identity)
	if err != nil {
		t.Fatal(err)
	}
	if f.PID != c.PID || f.Exe != c.Exe || f.CreateTime != c.CreateTime {
		t.Errorf("facts %+v do not describe %+v", f, c.Identity)
	}
	if !slices.Contains(f.ListenPorts, uint32(port)) {
		t.Errorf("ListenPorts = %v, want %d", f.ListenPorts, port)
	}
	if f.RSSBytes == 0 || f.NumThreads < 1 || f.Status == "" || f.CPUPercent < 0 {
		t.Errorf("implausible facts: %+v", f)
	}

	res, err := Stop(context.Background(), c.Identity, 20*time.Second)
	if err != nil || res.Signal != "SIGTERM" {
		t.Fatalf("Stop = %+v, %v", res, err)
	}
	<-c.Done
	if _, err := FactsOf(c.Identity); !errors.Is(err, ErrGone) {
		t.Fatalf("FactsOf(stopped) = %v, want ErrGone", err)
	}
}
