package agentlog

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/windows/svc/eventlog"
)

// fakeSource records what would be reported (Wine's ReportEvent reports
// nothing one could read back).
type fakeSource struct {
	mu  sync.Mutex
	got []string
}

func (f *fakeSource) add(level string, eid uint32, msg string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf("%s %d %s", level, eid, msg))
	return nil
}
func (f *fakeSource) Info(eid uint32, msg string) error    { return f.add("info", eid, msg) }
func (f *fakeSource) Warning(eid uint32, msg string) error { return f.add("warning", eid, msg) }
func (f *fakeSource) Error(eid uint32, msg string) error   { return f.add("error", eid, msg) }
func (f *fakeSource) Close() error                         { return nil }

// TestEventLogFieldsAsText: each line is one event of its level, through
// the svc-ctl source, its fields as text; debug lines stay out.
func TestEventLogFieldsAsText(t *testing.T) {
	fake := &fakeSource{}
	old := openEventSource
	var opened string
	openEventSource = func(name string) (eventSource, error) { opened = name; return fake, nil }
	t.Cleanup(func() { openEventSource = old })
	w, err := openEventLog()
	if err != nil {
		t.Fatal(err)
	}
	log := New(w, -4, nil)
	log.Info("agent.started", "version", "1.0")
	log.Warn("service.down", "service", "proxy", "why", "connection refused")
	log.Error("ledger.write_failing", "cause", "disk-full")
	log.Debug("cycle.ok")
	if opened != "svc-ctl" {
		t.Fatalf("source %q, want svc-ctl (what install registers)", opened)
	}
	want := []string{"info 1 agent.started pid=", "warning 2 service.down pid=", "error 3 ledger.write_failing pid="}
	if len(fake.got) != len(want) {
		t.Fatalf("events %q, want %d", fake.got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(fake.got[i], w) {
			t.Errorf("event %d = %q, want it to start %q", i, fake.got[i], w)
		}
	}
	if !strings.Contains(fake.got[1], `why="connection refused"`) {
		t.Errorf("fields not as text: %q", fake.got[1])
	}
}

// TestEventSourceRegistry: the source as install registers it (EventCreate's
// message file, in the registry) opens and takes a report; where the
// registry refuses (not an administrator) the test says so.
func TestEventSourceRegistry(t *testing.T) {
	name := fmt.Sprintf("svc-ctl-test-%d", os.Getpid())
	if err := eventlog.InstallAsEventCreate(name, eventlog.Error|eventlog.Warning|eventlog.Info); err != nil {
		t.Skipf("cannot register an event source here (an administrator can): %v", err)
	}
	defer eventlog.Remove(name)
	src, err := eventlog.Open(name)
	if err != nil {
		t.Fatalf("open the registered source: %v", err)
	}
	defer src.Close()
	if err := src.Info(eventIDInfo, "svc-ctl test event"); err != nil {
		t.Fatalf("report: %v", err)
	}
}
